package demo;

import java.util.HashMap;

/** Counts words. */
public class WordCounter {
    private final HashMap<String, Integer> counts = new HashMap<>();

    public WordCounter() {
    }

    /** Adds one occurrence. */
    @Deprecated
    public void add(String word) {
        counts.merge(word, 1, Integer::sum);
    }

    interface Sink {
        void accept(String word);
    }
}
