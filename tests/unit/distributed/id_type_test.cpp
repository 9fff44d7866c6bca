// weft::id_type (issue #23): locality ids, the null id, order, hashing, printing, and
// that ids travel through the archive.
#include <weft/distributed/id_type.hpp>
#include <weft/distributed/serialization.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <unordered_set>

TEST(id_type, localities_and_the_null_id) {
    const weft::id_type null;
    EXPECT_FALSE(null.valid());
    EXPECT_FALSE(static_cast<bool>(null));
    EXPECT_EQ(null.to_string(), "{invalid}");
    for (std::uint32_t n : {0u, 1u, 7u, 4'000'000'000u}) {
        const weft::id_type id = weft::id_type::locality(n);
        EXPECT_TRUE(id.valid());
        EXPECT_TRUE(id.is_locality());
        EXPECT_EQ(id.locality_id(), n);
        EXPECT_NE(id, null);
        EXPECT_EQ(id.to_string(), "{locality#" + std::to_string(n) + "}");
    }
    EXPECT_LT(weft::id_type::locality(0), weft::id_type::locality(1));
    std::ostringstream os;
    os << weft::id_type::locality(3);
    EXPECT_EQ(os.str(), "{locality#3}");
}

TEST(id_type, hashes_and_travels) {
    std::unordered_set<weft::id_type> set;
    for (std::uint32_t n = 0; n < 100; ++n) set.insert(weft::id_type::locality(n));
    EXPECT_EQ(set.size(), 100u);
    const weft::id_type id = weft::id_type::locality(42);
    weft::id_type back;
    weft::serialization::from_bytes(weft::serialization::to_bytes(id), back);
    EXPECT_EQ(back, id);
}
