package dev.engram.agents;

import dev.engram.memory.JobStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link MemoryManager#add} job did: for each fact, whether it was stored, merged into a near-duplicate the scope
 * already held, or failed (with why); and, for a failed job, its error. Nothing is left out: a fact the model
 * extracted is in exactly one of {@link #stored()}, {@link #merged()} and {@link #failed()}.
 *
 * @param jobId  the job
 * @param status where the job is ({@code COMPLETED} or {@code FAILED} once it ended)
 * @param total  how many facts the job has to handle (0 until the model answered)
 * @param facts  each fact handled so far, in the model's order
 * @param error  why the job failed; empty unless it failed
 */
public record AddResult(String jobId, JobStatus status, int total, List<Fact> facts, String error) {
    /** What became of a fact. */
    public enum Outcome {
        /** Stored as a new note or archival entry. */
        STORED,
        /** Not stored: the scope already held it (or a near-duplicate). */
        MERGED,
        /** Not stored: the store refused it. */
        FAILED
    }

    /**
     * One fact.
     *
     * @param text     the fact
     * @param outcome  what became of it
     * @param memoryId the note or archival entry it was stored as, or the one it was merged into; empty when it failed
     * @param matched  the text of the memory it was merged into; empty unless merged
     * @param error    why it failed; empty unless it failed
     */
    public record Fact(String text, Outcome outcome, Optional<String> memoryId, String matched, String error) {
        public Fact {
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(memoryId, "memoryId");
            Objects.requireNonNull(matched, "matched");
            Objects.requireNonNull(error, "error");
        }
    }

    public AddResult {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(status, "status");
        facts = List.copyOf(facts);
        Objects.requireNonNull(error, "error");
    }

    /** The facts stored as new memories. */
    public List<Fact> stored() {
        return of(Outcome.STORED);
    }

    /** The facts the scope already held. */
    public List<Fact> merged() {
        return of(Outcome.MERGED);
    }

    /** The facts the store refused. */
    public List<Fact> failed() {
        return of(Outcome.FAILED);
    }

    /** Whether the job completed and every fact was stored or merged. */
    public boolean succeeded() {
        return status == JobStatus.COMPLETED && failed().isEmpty();
    }

    private List<Fact> of(Outcome outcome) {
        return facts.stream().filter(f -> f.outcome() == outcome).toList();
    }
}
