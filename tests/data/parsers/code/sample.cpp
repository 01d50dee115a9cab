#include <string>

namespace text {

// Counts lines in a string.
class LineCounter {
public:
    explicit LineCounter(std::string s) : s_(std::move(s)) {}

    int count() const {
        int n = 0;
        for (char c : s_) n += c == '\n';
        return n;
    }

private:
    std::string s_;
};

int LineCounter_total(const LineCounter &c);

}  // namespace text

int text::Helper::twice(int x) {
    return 2 * x;
}
