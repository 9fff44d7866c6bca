// Must not compile: a unique future passed to a combinator as an lvalue (it would have to
// be copied). The test that builds this expects the combinator's one-line message,
// "weft::<name>: pass unique futures with std::move(f) (or use shared_future)", instead
// of a cascade of template errors. One case per WEFT_CASE_* definition.
#include <weft/futures/dataflow.hpp>
#include <weft/futures/when_all.hpp>
#include <weft/futures/when_any.hpp>

#include <utility>

void lvalue_future_argument() {
    weft::future<int> a = weft::make_ready_future(1);
    weft::future<int> b = weft::make_ready_future(2);
#if defined(WEFT_CASE_when_all)
    auto r = weft::when_all(a, std::move(b));
#elif defined(WEFT_CASE_when_any)
    auto r = weft::when_any(std::move(a), b);
#elif defined(WEFT_CASE_dataflow)
    auto r = weft::dataflow([](weft::future<int> x, weft::future<int> y) { return x.get() + y.get(); }, a, std::move(b));
#endif
    (void)r;
}
