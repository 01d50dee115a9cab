package samples.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Counts word frequencies in a stream of text and reports the most common words.
 * Words are lower-cased with the root locale and split on anything that is not a letter or digit.
 */
public class WordFrequency {
    private final Map<String, Integer> counts = new HashMap<>();
    private final int minLength;
    private long totalWords;

    /** A word and how often it occurred. */
    public record Entry(String word, int count) {}

    public WordFrequency(int minLength) {
        if (minLength < 1) {
            throw new IllegalArgumentException("minLength must be at least 1");
        }
        this.minLength = minLength;
    }

    /** Adds every word of {@code text} that is at least {@code minLength} characters long. */
    public void add(String text) {
        for (String token : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
            if (token.length() >= minLength) {
                counts.merge(token, 1, Integer::sum);
                totalWords++;
            }
        }
    }

    /** The {@code n} most frequent words, ties broken alphabetically. */
    public List<Entry> top(int n) {
        List<Entry> entries = new ArrayList<>();
        counts.forEach((word, count) -> entries.add(new Entry(word, count)));
        entries.sort(Comparator.comparingInt(Entry::count).reversed().thenComparing(Entry::word));
        return entries.subList(0, Math.min(n, entries.size()));
    }

    public long totalWords() {
        return totalWords;
    }
}
