package dev.engram.agents;

/**
 * How {@link MemoryManager#add} treats one batch of messages: whether a model extracts facts or the messages are kept
 * as they are, where facts go, what counts as a near-duplicate, and the limits a batch must keep (a batch over them is
 * refused at once and nothing is stored).
 *
 * @param raw             store each message's text as it is, without a model (Mem0's {@code infer=False})
 * @param target          where facts go
 * @param similarity      the word overlap (Jaccard, 0 to 1] above which a fact is a near-duplicate of one the scope holds
 * @param maxMessages     the most messages in a batch
 * @param maxMessageChars the most characters in one message
 * @param maxTotalChars   the most characters in all the messages of a batch
 */
public record AddOptions(boolean raw, Target target, double similarity, int maxMessages, int maxMessageChars,
        int maxTotalChars) {
    /** Where facts are stored. */
    public enum Target {
        /** Notes for a user's own scope, archival entries for an agent's. */
        AUTO,
        /** Always the user's notes. */
        NOTE,
        /** Always the agent's archival entries (the scope must name an agent). */
        ARCHIVAL
    }

    private static final AddOptions DEFAULTS = new AddOptions(false, Target.AUTO, 0.85, 200, 20_000, 200_000);

    public AddOptions {
        if (target == null) {
            throw new IllegalArgumentException("target must not be null");
        }
        if (!(similarity > 0 && similarity <= 1)) {
            throw new IllegalArgumentException("similarity must be above 0 and at most 1, got " + similarity);
        }
        if (maxMessages < 1 || maxMessageChars < 1 || maxTotalChars < 1) {
            throw new IllegalArgumentException("the message limits must be at least 1, got " + maxMessages + ", "
                    + maxMessageChars + ", " + maxTotalChars);
        }
    }

    /** Extraction by the model, facts stored by scope, near-duplicates above 0.85 word overlap, 200 messages of 20,000 characters, 200,000 in all. */
    public static AddOptions defaults() {
        return DEFAULTS;
    }

    /** These options, storing messages as they are ({@code true}) or extracting facts. */
    public AddOptions withRaw(boolean on) {
        return new AddOptions(on, target, similarity, maxMessages, maxMessageChars, maxTotalChars);
    }

    /** These options, storing facts at {@code where}. */
    public AddOptions withTarget(Target where) {
        return new AddOptions(raw, where, similarity, maxMessages, maxMessageChars, maxTotalChars);
    }

    /** These options, with another near-duplicate threshold. */
    public AddOptions withSimilarity(double threshold) {
        return new AddOptions(raw, target, threshold, maxMessages, maxMessageChars, maxTotalChars);
    }

    /** These options, with other batch limits. */
    public AddOptions withLimits(int messages, int messageChars, int totalChars) {
        return new AddOptions(raw, target, similarity, messages, messageChars, totalChars);
    }
}
