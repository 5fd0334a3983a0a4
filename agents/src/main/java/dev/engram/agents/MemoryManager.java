package dev.engram.agents;

import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.StreamListener;
import dev.engram.memory.Job;
import dev.engram.memory.JobLeases;
import dev.engram.memory.JobStatus;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Metadata;
import dev.engram.memory.NewArchivalEntry;
import dev.engram.memory.NotFoundException;
import dev.engram.memory.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Predicate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Memory written from a conversation, outside any turn (Mem0's {@code add}): {@link #add} hands a batch of messages to a
 * background job that has a model extract facts from them, checks each fact against what the scope already holds
 * (a near-duplicate is merged into the memory it matches, not stored again), and stores the rest as the user's notes
 * or the agent's archival entries, each with metadata naming the job, the messages it came from and the model. Stored
 * memories are indexed as every write is: a search following the store's change log finds them.
 *
 * <p><b>Nothing is dropped silently.</b> An answer of the model that does not parse is sent back to it once with the
 * parse error; if the second answer fails too, the job fails with that error and stores nothing. A fact the store
 * refuses is listed as failed in the result. A job is stored with its input before {@code add} returns, so a job a
 * crash interrupted is still there at the next start: {@link #resumeUnfinished()} runs it again (near-duplicates of
 * what its first attempt stored are merged), or fails it after {@link #MAX_ATTEMPTS} attempts. Where several processes
 * write to one store (a server and the CLI), a manager keeps the jobs it holds alive in the store (every
 * {@link #HEARTBEAT}), and {@link #resumeAbandoned()} takes up only the jobs whose owner is gone.
 *
 * <pre>{@code
 * try (MemoryManager memory = MemoryManager.builder(store).model(ChatModel.of("openai:gpt-4o-mini")).build()) {
 *     AddJob job = memory.add(List.of(MemoryMessage.user("I moved to Porto last month")), MemoryScope.user("ana"));
 *     AddResult result = job.await(Duration.ofMinutes(1)); // result.stored(), merged(), failed(), error()
 * }
 * }</pre>
 *
 * <p>Jobs run one after another on the manager's own thread (two jobs never race to store the same fact). Thread-safe.
 */
public final class MemoryManager implements AutoCloseable {
    /** The {@link Job#kind()} of an add job. */
    public static final String KIND = "memory_add";
    /** The most times a job is started; one interrupted this often fails at the next start. */
    public static final int MAX_ATTEMPTS = 2;
    /** How often a manager marks the jobs it holds as alive ({@link dev.engram.memory.JobStore#touch}). */
    public static final Duration HEARTBEAT = JobLeases.HEARTBEAT;
    /**
     * An active job unchanged for longer than this has lost its owner (the process that ran it stopped):
     * {@link #resumeAbandoned()} takes it up. Four heartbeats, so that a busy process never loses a job it runs.
     */
    public static final Duration LEASE = JobLeases.LEASE;
    /** The most memories of a scope a fact is compared with. */
    static final int MAX_COMPARED = 10_000;
    private static final int PAGE = 500;

    private final MemoryStore store;
    private final Optional<Function<MemoryScope, ChatModel>> models;
    private final AddOptions options;
    private final ExecutorService worker;
    private final JobLeases leases;

    private MemoryManager(Builder b) {
        this.store = b.store;
        this.models = Optional.ofNullable(b.models);
        this.options = b.options;
        this.worker = Executors.newSingleThreadExecutor(Thread.ofVirtual().name("engram-memory-add").factory());
        this.leases = JobLeases.on(store);
    }

    /** A manager writing to {@code store}. */
    public static Builder builder(MemoryStore store) {
        return new Builder(store);
    }

    /** {@link #add(List, MemoryScope, AddOptions)} with the manager's options. */
    public AddJob add(List<MemoryMessage> messages, MemoryScope scope) {
        return add(messages, scope, options);
    }

    /**
     * Accepts a batch of messages for the scope's memory and returns its job at once; the job is durable when this
     * returns and runs in the background.
     *
     * @throws IllegalArgumentException if the batch is empty or over the options' limits, extraction needs a model the
     *                                  manager has none of, or archival entries are asked for a scope without an agent
     *                                  (nothing is stored)
     * @throws NotFoundException        if the scope names an agent the user does not have (nothing is stored)
     */
    public AddJob add(List<MemoryMessage> messages, MemoryScope scope, AddOptions addOptions) {
        Objects.requireNonNull(messages, "messages must not be null");
        Objects.requireNonNull(scope, "scope must not be null");
        Objects.requireNonNull(addOptions, "options must not be null");
        check(messages, addOptions);
        if (!addOptions.raw() && models.isEmpty()) {
            throw new IllegalArgumentException("extracting facts needs a model: build the MemoryManager with model(...), "
                    + "or add the messages raw");
        }
        AddOptions.Target target = target(scope, addOptions.target());
        scope.scope().ifPresent(s -> store.agents().get(s).orElseThrow(() ->
                new NotFoundException("Agent '" + s.agentId() + "' not found.")));
        ObjectNode input = Heartbeats.JSON.createObjectNode();
        ArrayNode list = input.putArray("messages");
        messages.forEach(m -> list.addObject().put("role", m.role()).put("content", m.content()));
        input.put("raw", addOptions.raw()).put("target", target.name()).put("similarity", addOptions.similarity());
        Job job = scope.scope().map(s -> store.jobs().create(s, KIND, input.toString()))
                .orElseGet(() -> store.jobs().create(scope.userId(), KIND, input.toString()));
        return submit(job);
    }

    /**
     * Takes up the add jobs a crash (or a stop) interrupted: each started fewer than {@link #MAX_ATTEMPTS} times runs
     * again; the others fail, saying so. Call it once at a start, from the one process that runs this store's jobs
     * (jobs this manager holds are left to it). Over a backend that keeps no jobs there is nothing to resume.
     *
     * @return the jobs resumed, to wait on
     */
    public List<AddJob> resumeUnfinished() {
        return resume(job -> !leases.holds(job.id()), false);
    }

    /**
     * Takes up the add jobs whose owner is gone, where other processes may run jobs on the same store: those active but
     * unchanged for longer than {@link #LEASE} (a manager that holds a job touches it every {@link #HEARTBEAT}), and not
     * held by this manager. Each started fewer than {@link #MAX_ATTEMPTS} times runs again; the others fail, saying so.
     * A job some live process holds is left to it.
     *
     * @return every job taken up, to wait on: a resumed one completes when it has run again, a failed one at once
     */
    public List<AddJob> resumeAbandoned() {
        return resume(leases::abandoned, true);
    }

    /**
     * Calls {@link #resumeAbandoned()} every {@code period} from now until {@link #close}: for a long-running process (a
     * server) that shares its store with others, so that a job whose owner stopped meanwhile is taken up without a
     * restart.
     *
     * @throws IllegalArgumentException if the period is not positive
     */
    public void resumeAbandonedEvery(Duration period) {
        Objects.requireNonNull(period, "period must not be null");
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("the period must be positive, got " + period);
        }
        leases.every(period, this::resumeAbandoned);
    }

    private List<AddJob> resume(Predicate<Job> take, boolean withFailed) {
        List<Job> unfinished;
        try {
            unfinished = store.jobs().unfinished();
        } catch (UnsupportedOperationException e) {
            return List.of(); // a backend that keeps no jobs has none to resume (and add refuses to start one)
        }
        List<AddJob> out = new ArrayList<>();
        for (Job job : unfinished) {
            if (!job.kind().equals(KIND) || !take.test(job)) {
                continue;
            }
            if (job.attempts() >= MAX_ATTEMPTS) {
                Job failed = store.jobs().finish(job.userId(), job.id(), JobStatus.FAILED, job.result(), "the job was "
                        + "interrupted " + job.attempts() + " times (the process stopped while it ran); add the messages again");
                if (withFailed) {
                    out.add(new AddJob(failed, store, CompletableFuture.completedFuture(result(failed))));
                }
            } else {
                out.add(submit(job));
            }
        }
        return List.copyOf(out);
    }

    /** The result of an add job as stored (what it has done so far, or in the end). */
    public static AddResult result(Job job) {
        JsonNode r = Heartbeats.JSON.readTree(job.result());
        List<AddResult.Fact> facts = new ArrayList<>();
        for (JsonNode f : r.path("facts")) {
            String id = f.path("memory_id").asString("");
            facts.add(new AddResult.Fact(f.path("text").asString(""), AddResult.Outcome.valueOf(f.path("outcome").asString()),
                    id.isEmpty() ? Optional.empty() : Optional.of(id), f.path("matched").asString(""),
                    f.path("error").asString("")));
        }
        return new AddResult(job.id(), job.status(), r.path("total").asInt(0), facts, job.error());
    }

    private AddJob submit(Job job) {
        CompletableFuture<AddResult> done = new CompletableFuture<>();
        leases.hold(job);
        try {
            worker.execute(() -> {
                try {
                    done.complete(run(job.userId(), job.id()));
                } finally {
                    leases.release(job.id());
                }
            });
        } catch (RejectedExecutionException e) {
            leases.release(job.id());
            throw new IllegalStateException("the memory manager is closed; job " + job.id() + " stays stored and runs at "
                    + "the next resumeUnfinished()", e);
        }
        return new AddJob(job, store, done);
    }

    private static void check(List<MemoryMessage> messages, AddOptions o) {
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("there are no messages to add; send at least one {\"role\", \"content\"}");
        }
        if (messages.size() > o.maxMessages()) {
            throw new IllegalArgumentException("a batch holds at most " + o.maxMessages() + " messages, got "
                    + messages.size() + "; send them in several batches");
        }
        long total = 0;
        for (int i = 0; i < messages.size(); i++) {
            MemoryMessage m = Objects.requireNonNull(messages.get(i), "message " + i + " must not be null");
            if (m.content().length() > o.maxMessageChars()) {
                throw new IllegalArgumentException("message " + i + " holds " + m.content().length()
                        + " characters; a message holds at most " + o.maxMessageChars());
            }
            total += m.content().length();
        }
        if (total > o.maxTotalChars()) {
            throw new IllegalArgumentException("the messages hold " + total + " characters; a batch holds at most "
                    + o.maxTotalChars() + "; send them in several batches");
        }
    }

    private static AddOptions.Target target(MemoryScope scope, AddOptions.Target asked) {
        if (asked == AddOptions.Target.ARCHIVAL && scope.agentId().isEmpty()) {
            throw new IllegalArgumentException("archival entries belong to an agent: name one in the scope, or store notes");
        }
        if (asked != AddOptions.Target.AUTO) {
            return asked;
        }
        return scope.agentId().isPresent() ? AddOptions.Target.ARCHIVAL : AddOptions.Target.NOTE;
    }

    /** Runs a stored job to its end; never throws (a failure ends the job as failed). */
    private AddResult run(String userId, String jobId) {
        Job job;
        try {
            job = store.jobs().start(userId, jobId);
        } catch (RuntimeException e) {
            return store.jobs().get(userId, jobId).map(MemoryManager::result)
                    .orElseGet(() -> new AddResult(jobId, JobStatus.FAILED, 0, List.of(), e.getMessage()));
        }
        try {
            JsonNode input = Heartbeats.JSON.readTree(job.input());
            List<MemoryMessage> messages = MemoryMessage.fromJson(input.get("messages"));
            boolean raw = input.path("raw").asBoolean();
            List<FactExtraction.Extracted> facts;
            if (raw) {
                facts = new ArrayList<>();
                for (int i = 0; i < messages.size(); i++) {
                    facts.add(new FactExtraction.Extracted(messages.get(i).content(), List.of(i)));
                }
            } else {
                Optional<List<FactExtraction.Extracted>> extracted = extract(job, messages);
                if (extracted.isEmpty()) {
                    return result(store.jobs().get(userId, jobId).orElseThrow()); // failed, with its error
                }
                facts = extracted.get();
            }
            return result(store(job, facts, messages, AddOptions.Target.valueOf(input.path("target").asString()),
                    input.path("similarity").asDouble(), raw));
        } catch (RuntimeException e) {
            return result(store.jobs().finish(userId, jobId, JobStatus.FAILED, store.jobs().get(userId, jobId)
                    .map(Job::result).orElse("{}"), "the job failed: " + e.getMessage()));
        }
    }

    /** The facts the model extracts, asking again once with the error; empty when the job failed (it is ended). */
    private Optional<List<FactExtraction.Extracted>> extract(Job job, List<MemoryMessage> messages) {
        ChatModel m = model(job);
        List<ChatMessage> conversation = new ArrayList<>(List.of(new ChatMessage.System(FactExtraction.SYSTEM),
                new ChatMessage.User(FactExtraction.conversation(messages))));
        String error = "";
        for (int attempt = 1; attempt <= 2; attempt++) {
            StringBuilder reasoning = new StringBuilder();
            String text = m.stream(ChatRequest.of(conversation), new StreamListener() {
                @Override
                public void onReasoning(String delta) {
                    reasoning.append(delta);
                }
            }).message().text();
            try {
                return Optional.of(FactExtraction.parse(text, reasoning.toString(), messages.size()));
            } catch (FactExtraction.ParseException e) {
                error = e.getMessage();
                conversation.add(ChatMessage.Assistant.text(text));
                conversation.add(new ChatMessage.User(FactExtraction.retry(error)));
            }
        }
        store.jobs().finish(job.userId(), job.id(), JobStatus.FAILED, "{\"total\":0,\"facts\":[]}",
                "the model's answer could not be read, also when asked again with the error: " + error);
        return Optional.empty();
    }

    private ChatModel model(Job job) {
        MemoryScope scope = job.agentId().map(a -> MemoryScope.agent(job.userId(), a)).orElse(MemoryScope.user(job.userId()));
        return models.orElseThrow(() -> new IllegalStateException("extracting facts needs a model; this manager has none "
                + "(build it with model(...))")).apply(scope);
    }

    /** Stores each fact that is not a near-duplicate, recording each outcome with the fact in one unit of work. */
    private Job store(Job job, List<FactExtraction.Extracted> facts, List<MemoryMessage> messages, AddOptions.Target target,
            double similarity, boolean raw) {
        FactMatcher matcher = new FactMatcher(similarity);
        Scope scope = job.scope().orElse(null);
        for (int offset = 0; offset < MAX_COMPARED; offset += PAGE) {
            int from = offset;
            List<Map.Entry<String, String>> page = target == AddOptions.Target.NOTE
                    ? store.notes().list(job.userId(), from, PAGE).stream().map(n -> Map.entry(n.id(), n.content())).toList()
                    : store.archival().list(scope, from, PAGE).stream().map(e -> Map.entry(e.id(), e.content())).toList();
            page.forEach(e -> matcher.add(e.getKey(), e.getValue()));
            if (page.size() < PAGE) {
                break;
            }
        }
        ObjectNode result = Heartbeats.JSON.createObjectNode();
        result.put("total", facts.size());
        ArrayNode outcomes = result.putArray("facts");
        String modelName = raw ? "none (raw)" : model(job).name();
        for (FactExtraction.Extracted fact : facts) {
            ObjectNode outcome = Heartbeats.JSON.createObjectNode().put("text", fact.text());
            Optional<FactMatcher.Known> known = matcher.match(fact.text());
            if (known.isPresent()) {
                outcomes.add(outcome.put("outcome", "MERGED").put("memory_id", known.get().id())
                        .put("matched", known.get().text()));
                store.jobs().progress(job.userId(), job.id(), result.toString());
                continue;
            }
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("source", KIND);
            meta.put("job_id", job.id());
            meta.put("messages", fact.messages());
            meta.put("roles", fact.messages().stream().map(i -> messages.get(i).role()).distinct().toList());
            meta.put("model", modelName);
            try {
                String id = store.inTransaction(tx -> {
                    String stored = target == AddOptions.Target.NOTE
                            ? tx.notes().save(job.userId(), fact.text(), Metadata.of(meta)).id()
                            : tx.archival().insert(scope, NewArchivalEntry.of(fact.text()).withMetadata(Metadata.of(meta))).id();
                    outcomes.add(outcome.put("outcome", "STORED").put("memory_id", stored));
                    tx.jobs().progress(job.userId(), job.id(), result.toString());
                    return stored;
                });
                matcher.add(id, fact.text());
            } catch (RuntimeException e) {
                outcome.remove("memory_id");
                if (outcomes.size() > 0 && outcomes.get(outcomes.size() - 1) == outcome) {
                    outcomes.remove(outcomes.size() - 1);
                }
                outcomes.add(outcome.put("outcome", "FAILED").put("error", e.getMessage()));
                store.jobs().progress(job.userId(), job.id(), result.toString());
            }
        }
        return store.jobs().finish(job.userId(), job.id(), JobStatus.COMPLETED, result.toString(), "");
    }

    /** Stops taking jobs; a job not yet run stays stored for {@link #resumeUnfinished()}. Does not close the store. */
    @Override
    public void close() {
        worker.shutdownNow();
        leases.close();
    }

    /** Builds a {@link MemoryManager}. */
    public static final class Builder {
        private final MemoryStore store;
        private Function<MemoryScope, ChatModel> models;
        private AddOptions options = AddOptions.defaults();

        private Builder(MemoryStore store) {
            this.store = Objects.requireNonNull(store, "store must not be null");
        }

        /** The model that extracts facts (the agent's model, or one chosen for extraction); without one only raw adds work. */
        public Builder model(ChatModel chatModel) {
            Objects.requireNonNull(chatModel, "model must not be null");
            this.models = scope -> chatModel;
            return this;
        }

        /** The model for each scope's jobs, such as its agent's own ({@code AgentRuntime.model(spec)}); replaces {@link #model}. */
        public Builder models(Function<MemoryScope, ChatModel> perScope) {
            this.models = Objects.requireNonNull(perScope, "models must not be null");
            return this;
        }

        /** The options of {@link #add(List, MemoryScope)}; {@link AddOptions#defaults()} unless set. */
        public Builder options(AddOptions addOptions) {
            this.options = Objects.requireNonNull(addOptions, "options must not be null");
            return this;
        }

        /** The manager. */
        public MemoryManager build() {
            return new MemoryManager(this);
        }
    }
}
