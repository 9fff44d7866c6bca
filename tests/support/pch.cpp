// The translation unit that builds the tests' precompiled header (tests/CMakeLists.txt:
// weft_test_pch): gtest and the umbrella header, which every runtime-level test parses
// anyway (about 6 s of g++'s time per test file, most of a small test's build).
