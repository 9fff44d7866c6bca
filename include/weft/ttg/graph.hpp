// The template task graph as a whole (issue #26; seed 001 ch.6): starting and ending a
// TTG program, fence(), the graph check and the Graphviz printer.
#pragma once

#include <weft/ttg/tt.hpp>

#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace weft::ttg {

/// Starts weft for a TTG program, from main: a weft::runtime configured by argv's
/// --weft: options (and WEFT_*), one locality per MPI rank; main's code then runs on
/// every locality, as TTG programs expect. Inside weft::run (a runtime already runs) it
/// only checks that every locality builds the graph: one locality, or --weft:spmd.
/// @throws as weft::runtime(argc, argv); weft::error inside a non-SPMD weft::run on
///         several localities.
void initialize(int& argc, char** argv);
/// Ends what initialize started: fence(), then stops the runtime it started (on every
/// locality: each must call finalize). Inside weft::run: fence() only.
void finalize();
/// TTG's execute(): the graph runs as messages arrive, so this only marks the point
/// from which sends are expected (kept for TTG programs; it checks nothing).
void execute();
/// Returns once the graph has quiesced on every locality: no template task instance is
/// scheduled or running, no TTG message is in flight (F. Mattern's four counters over
/// waves, as weft::run's termination). Collective: every locality that builds the graph
/// calls it. Instances still missing inputs do not hold it up; they stay, and run if
/// their inputs come later. Then throws what task bodies on this locality threw since the
/// last fence: the exception itself if one, weft::exception_list if several.
void fence();
/// The number of template task instances that ran on this locality since the program
/// started (counted when they finished).
std::uint64_t tasks_run() noexcept;

namespace detail {
/// Every template task reachable from `roots` through edges, roots first.
std::vector<const tt_base*> reachable(const std::vector<const tt_base*>& roots);
/// What is not connected in `tts`; `roots` are where the program starts the graph (their
/// inputs may be fed by invoke alone). Empty if all is.
std::string check_graph(const std::vector<const tt_base*>& tts, const std::vector<const tt_base*>& roots);
void print_dot(std::ostream& os, const std::vector<const tt_base*>& tts);

template <class T>
const tt_base* as_base(const T& t) {
    if constexpr (requires { t.get(); }) return t.get();
    else if constexpr (std::is_pointer_v<T>) return t;
    else return &t;
}
}  // namespace detail

/// Checks the graph reachable from the given template tasks (the roots, where the
/// program starts it): every output terminal's edge reaches an input terminal, and every
/// input terminal's edge has an output terminal sending on it (or is a pull edge; a
/// root's inputs may be fed by invoke(key, values...) alone). Then messages from other localities reach
/// these template tasks (until then they wait). Returns true; @throws weft::error naming
/// every terminal that is not connected (template task, terminal number and name, edge).
template <class... T>
bool make_graph_executable(const T&... tts) {
    const std::vector<const detail::tt_base*> roots{detail::as_base(tts)...};
    const std::vector<const detail::tt_base*> all = detail::reachable(roots);
    const std::string problems = detail::check_graph(all, roots);
    if (!problems.empty()) throw error("weft::ttg::make_graph_executable: " + problems);
    for (const detail::tt_base* t : all) detail::make_executable(const_cast<detail::tt_base*>(t));
    return true;
}

/// Prints the graph reachable from template tasks as Graphviz dot: a node per template
/// task, an arc per edge from each sender to each receiver, labelled with the edge's and
/// the terminals' names.
struct Dot {
    template <class... T>
    std::string operator()(const T&... tts) const {
        std::ostringstream os;
        detail::print_dot(os, detail::reachable({detail::as_base(tts)...}));
        return os.str();
    }
};

}  // namespace weft::ttg
