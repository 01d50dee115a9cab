// IntervalSet: a sorted set of disjoint half-open integer intervals [lo, hi),
// merging on insert. Used to track which byte ranges of a download have arrived.
#include <cstdint>
#include <iterator>
#include <map>
#include <string>

namespace transfer {

/// Disjoint half-open intervals, keyed by their start.
class IntervalSet {
public:
    using Offset = std::int64_t;

    /// Adds [lo, hi), merging with any overlapping or adjacent intervals.
    void insert(Offset lo, Offset hi) {
        if (lo >= hi) return;
        auto it = ranges_.upper_bound(lo);
        if (it != ranges_.begin() && std::prev(it)->second >= lo) {
            --it;
            lo = it->first;
        }
        while (it != ranges_.end() && it->first <= hi) {
            hi = std::max(hi, it->second);
            it = ranges_.erase(it);
        }
        ranges_.emplace(lo, hi);
    }

    /// True when every offset in [lo, hi) is covered.
    bool contains(Offset lo, Offset hi) const {
        auto it = ranges_.upper_bound(lo);
        if (it == ranges_.begin()) return false;
        --it;
        return it->first <= lo && hi <= it->second;
    }

    /// Total number of covered offsets.
    Offset covered() const;

    std::string describe() const;

private:
    std::map<Offset, Offset> ranges_;
};

IntervalSet::Offset IntervalSet::covered() const {
    Offset total = 0;
    for (const auto &[lo, hi] : ranges_) total += hi - lo;
    return total;
}

// Renders the set as "[0,10) [20,30)" for log messages.
std::string IntervalSet::describe() const {
    std::string out;
    for (const auto &[lo, hi] : ranges_) {
        if (!out.empty()) out += ' ';
        out += "[" + std::to_string(lo) + "," + std::to_string(hi) + ")";
    }
    return out;
}

}  // namespace transfer
