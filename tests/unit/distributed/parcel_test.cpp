// Actions and parcels without a network (issue #23): WEFT_PLAIN_ACTION registers actions
// in a table with stable ids and a checksum; a call parcel built from an action and its
// arguments, split back out of a message and invoked, yields the function's result; a
// remote action's exception travels back as its own type (the standard ones and
// weft's) or as weft::remote_exception naming the type and the locality; and a message
// is split into parcels only if every header checks out (a seeded driver mutates valid
// messages: each split succeeds or throws weft::serialization_error).
#include <weft/distributed/action.hpp>
#include <weft/distributed/parcel.hpp>

#include <weft/config/errors.hpp>

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace {

int square(int x) { return x * x; }
std::string greet(const std::string& who, int times) {
    std::string s;
    for (int i = 0; i < times; ++i) s += "hello " + who + ";";
    return s;
}
int noted = 0;
void note(int x) { noted += x; }

struct custom_error : std::exception {
    const char* what() const noexcept override { return "custom trouble"; }
};
int thrower(int which) {
    switch (which) {
        case 0: throw std::runtime_error("runtime");
        case 1: throw std::invalid_argument("invalid");
        case 2: throw std::out_of_range("range");
        case 3: throw std::logic_error("logic");
        case 4: throw weft::error("weft's");
        case 5: throw weft::lco_error(std::errc::operation_not_permitted, "not the owner");
        case 7: throw weft::channel_closed();
        case 8: throw weft::bad_counter_name("weft: counter 'x': no such counter");
        default: throw custom_error();
    }
}

}  // namespace

WEFT_PLAIN_ACTION(square, square_action);
WEFT_PLAIN_ACTION(greet, greet_action);
WEFT_PLAIN_ACTION(note, note_action);
WEFT_PLAIN_ACTION(thrower, thrower_action);

namespace {

namespace wd = weft::distributed::detail;
namespace ws = weft::serialization;

const wd::action_table& table() {
    wd::action_table::instance().freeze();
    return wd::action_table::instance();
}

TEST(actions, ids_are_the_sorted_names_and_the_checksum_is_stable) {
    const auto& t = table();
    ASSERT_GE(t.size(), 4u);
    EXPECT_LT(greet_action::id(), note_action::id());  // sorted by name
    EXPECT_LT(note_action::id(), square_action::id());
    EXPECT_LT(square_action::id(), thrower_action::id());
    EXPECT_EQ(t.find(square_action::id())->name, "square_action");
    EXPECT_EQ(t.find(static_cast<std::uint32_t>(t.size())), nullptr);  // an id out of range
    EXPECT_NE(t.checksum(), 0u);
    EXPECT_THROW((void)t.id_of("no_such_action"), weft::error);
    EXPECT_THROW(wd::action_table::instance().add({"late", "", nullptr}), weft::error);  // after freeze
}

/// What a locality does with a message: split it, run each call, and answer it; the
/// answers (result or exception parcels) go into `reply`.
void serve(std::span<const std::byte> message, std::uint32_t here, std::vector<std::byte>& reply) {
    const auto& t = table();
    for (const wd::parcel_view& p : wd::split_message(message, {here, 2, t.size()})) {
        ASSERT_EQ(p.header.kind, wd::parcel_kind::call);
        ws::input_archive args(p.payload);
        static ws::output_archive result;
        result.clear();
        wd::parcel_header h;
        h.source = here;
        h.destination = p.header.source;
        h.continuation = p.header.continuation;
        try {
            bool decoded = false;
            (void)t.find(p.header.action)->invoke(args, [] () -> ws::output_archive& { return result; }, decoded);
            h.kind = wd::parcel_kind::result;
        } catch (...) {
            result.clear();
            wd::encode_exception(result, std::current_exception(), here);
            h.kind = wd::parcel_kind::exception;
        }
        if (h.continuation != 0) wd::append_parcel(reply, h, result.chunks(), result.bytes());
    }
}

template <class Action, class... A>
void call(std::vector<std::byte>& message, std::uint64_t continuation, const A&... args) {
    ws::output_archive out;
    out(args...);
    wd::parcel_header h;
    h.kind = wd::parcel_kind::call;
    h.source = 0;
    h.destination = 1;
    h.action = Action::id();
    h.continuation = continuation;
    wd::append_parcel(message, h, out.chunks(), out.bytes());
}

TEST(actions, calls_travel_as_parcels_and_results_come_back) {
    std::vector<std::byte> message, reply;
    call<square_action>(message, 11, 7);
    call<greet_action>(message, 12, std::string("weft"), 2);
    call<note_action>(message, 0, 5);  // posted: no answer
    noted = 0;
    serve(message, 1, reply);
    EXPECT_EQ(noted, 5);
    const auto answers = wd::split_message(reply, {0, 2, table().size()});
    ASSERT_EQ(answers.size(), 2u);
    EXPECT_EQ(answers[0].header.kind, wd::parcel_kind::result);
    EXPECT_EQ(answers[0].header.continuation, 11u);
    int sq = 0;
    ws::from_bytes(answers[0].payload, sq);
    EXPECT_EQ(sq, 49);
    std::string g;
    ws::from_bytes(answers[1].payload, g);
    EXPECT_EQ(g, "hello weft;hello weft;");
}

TEST(actions, arguments_that_do_not_decode_are_an_exception_for_the_caller) {
    std::vector<std::byte> message, reply;
    call<square_action>(message, 3, std::string("not an int"));
    serve(message, 1, reply);
    const auto answers = wd::split_message(reply, {0, 2, table().size()});
    ASSERT_EQ(answers.size(), 1u);
    ASSERT_EQ(answers[0].header.kind, wd::parcel_kind::exception);
    ws::input_archive in(answers[0].payload);
    EXPECT_THROW(std::rethrow_exception(wd::decode_exception(in)), weft::serialization_error);
}

/// Runs thrower(which) "remotely" and returns the exception the caller gets.
std::exception_ptr remote_throw(int which) {
    std::vector<std::byte> message, reply;
    call<thrower_action>(message, 1, which);
    serve(message, 1, reply);
    const auto answers = wd::split_message(reply, {0, 2, table().size()});
    EXPECT_EQ(answers.size(), 1u);
    EXPECT_EQ(answers.at(0).header.kind, wd::parcel_kind::exception);
    ws::input_archive in(answers.at(0).payload);
    return wd::decode_exception(in);
}

template <class E>
std::string thrown_as(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const E& x) {
        return typeid(x) == typeid(E) ? x.what() : std::string("a subclass: ") + x.what();
    } catch (...) {
        return "another type";
    }
}

TEST(actions, standard_and_weft_exceptions_arrive_as_themselves) {
    EXPECT_EQ(thrown_as<std::runtime_error>(remote_throw(0)), "runtime");
    EXPECT_EQ(thrown_as<std::invalid_argument>(remote_throw(1)), "invalid");
    EXPECT_EQ(thrown_as<std::out_of_range>(remote_throw(2)), "range");
    EXPECT_EQ(thrown_as<std::logic_error>(remote_throw(3)), "logic");
    EXPECT_EQ(thrown_as<weft::error>(remote_throw(4)), "weft's");
    try {
        std::rethrow_exception(remote_throw(5));
    } catch (const weft::lco_error& e) {
        EXPECT_EQ(e.code(), std::make_error_code(std::errc::operation_not_permitted));
        EXPECT_STREQ(e.what(), "not the owner");
    }
    // A distributed channel's receiver learns it is closed as on one locality.
    EXPECT_EQ(thrown_as<weft::channel_closed>(remote_throw(7)), "weft::channel: the channel is closed");
    // A counter name another locality could not resolve (a remote counter query).
    EXPECT_EQ(thrown_as<weft::bad_counter_name>(remote_throw(8)), "weft: counter 'x': no such counter");
}

TEST(actions, other_exceptions_arrive_as_remote_exception_naming_type_and_locality) {
    try {
        std::rethrow_exception(remote_throw(6));
        FAIL() << "no exception";
    } catch (const weft::remote_exception& e) {
        EXPECT_NE(e.type_name().find("custom_error"), std::string::npos) << e.type_name();
        EXPECT_EQ(e.message(), "custom trouble");
        EXPECT_EQ(e.locality(), 1u);
        EXPECT_NE(std::string(e.what()).find("on locality 1"), std::string::npos) << e.what();
    }
}

TEST(parcels, headers_are_checked) {
    std::vector<std::byte> message;
    call<square_action>(message, 1, 3);
    const wd::parcel_limits ok{1, 2, table().size()};
    EXPECT_EQ(wd::split_message(message, ok).size(), 1u);
    auto error_of = [&](std::vector<std::byte> m, wd::parcel_limits l) {
        try {
            (void)wd::split_message(m, l);
        } catch (const weft::serialization_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(error_of(message, {0, 2, table().size()}).find("addressed to locality 1, received on 0"), std::string::npos);
    EXPECT_NE(error_of(message, {1, 2, 0}).find("action"), std::string::npos);
    EXPECT_NE(error_of({}, ok).find("empty"), std::string::npos);
    auto bad_magic = message;
    bad_magic[0] = std::byte{0};
    EXPECT_NE(error_of(bad_magic, ok).find("magic"), std::string::npos);
    auto truncated = message;
    truncated.pop_back();
    EXPECT_NE(error_of(truncated, ok).find("payload"), std::string::npos);
}

TEST(parcels, mutated_messages_split_or_are_rejected) {
    std::mt19937 rng(4);
    const wd::parcel_limits limits{1, 4, table().size()};
    int rejected = 0;
    for (int i = 0; i < 5'000; ++i) {
        std::vector<std::byte> message;
        for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) call<square_action>(message, rng() % 9, static_cast<int>(rng()));
        for (int m = 1 + static_cast<int>(rng() % 3); m > 0; --m) {
            switch (rng() % 3) {
                case 0: message[rng() % message.size()] ^= static_cast<std::byte>(1u << (rng() % 8)); break;
                case 1: message.resize(rng() % message.size() + 1); break;
                default: message[rng() % message.size()] = std::byte{0xff}; break;
            }
        }
        try {
            for (const auto& p : wd::split_message(message, limits)) {
                ASSERT_LE(p.payload.data() + p.payload.size(), message.data() + message.size());
                ASSERT_GE(p.payload.data(), message.data());
            }
        } catch (const weft::serialization_error&) {
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 0);
}

}  // namespace
