# weft_add_module(NAME [INTERFACE] SOURCES ... DEPENDS ...)
# Makes the library weft_<NAME> with alias weft::<NAME>; DEPENDS name lower layers only.
include_guard(GLOBAL)

add_library(weft_options INTERFACE)
add_library(weft::options ALIAS weft_options)
target_compile_features(weft_options INTERFACE cxx_std_20)
# Every task runs on a small stack above a guard region (src/platform/stack.cpp): with
# stack-clash protection a frame larger than a page is probed page by page, so an
# overflow always meets the guard and is reported, never written past it. Exported: the
# user's task code is what overflows.
target_compile_options(weft_options INTERFACE -fstack-clash-protection)
set(_weft_warn -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Wunused -Woverloaded-virtual -Wconversion -Wsign-conversion)
if(WEFT_WARNINGS_AS_ERRORS)
  list(APPEND _weft_warn -Werror)
endif()
# Warnings apply to weft's own sources only, never to a consumer of the installed package.
set(WEFT_WARNING_FLAGS ${_weft_warn} CACHE INTERNAL "")

if(WEFT_SANITIZER STREQUAL "address")
  set(_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
elseif(WEFT_SANITIZER STREQUAL "thread")
  set(_san -fsanitize=thread -fno-omit-frame-pointer)
elseif(NOT WEFT_SANITIZER STREQUAL "")
  message(FATAL_ERROR "WEFT_SANITIZER must be '', 'address' or 'thread', not '${WEFT_SANITIZER}'")
endif()
if(_san)
  target_compile_options(weft_options INTERFACE ${_san})
  target_link_options(weft_options INTERFACE ${_san})
endif()

function(weft_add_module name)
  cmake_parse_arguments(M "INTERFACE" "" "SOURCES;DEPENDS" ${ARGN})
  set(target weft_${name})
  if(M_INTERFACE)
    add_library(${target} INTERFACE)
    target_link_libraries(${target} INTERFACE weft::options ${M_DEPENDS})
    target_include_directories(${target} INTERFACE
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  else()
    add_library(${target} STATIC ${M_SOURCES})
    target_link_libraries(${target} PUBLIC weft::options ${M_DEPENDS})
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
    # A layer's src/<layer>/ is private to it: another layer's internals do not compile
    # there; what a layer exports upward is under include/weft/<layer>/.
    if(EXISTS ${PROJECT_SOURCE_DIR}/src/${name})
      target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/${name})
    endif()
    target_compile_options(${target} PRIVATE ${WEFT_WARNING_FLAGS})
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON
                                               EXPORT_NAME ${name})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(weft::${name} ALIAS ${target})
  set_property(GLOBAL APPEND PROPERTY WEFT_MODULES ${target})
endfunction()
