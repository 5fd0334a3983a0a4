package dev.engram.framework;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;

/**
 * The one execution pipeline every tool call goes through. It never throws to its caller: each call
 * returns a {@link ToolResult}, and every problem is an error result written for the model.
 *
 * <ol>
 *   <li><b>Lookup</b>: an unknown tool gets an error listing the tools the agent may call.</li>
 *   <li><b>Policy</b>: the agent's {@link ToolPolicy}.</li>
 *   <li><b>Hooks</b> before the call ({@link ToolHook}, in order): allow, deny, rewrite the arguments, add a note.</li>
 *   <li><b>Parse and validate</b> the arguments against the tool's schema; every problem is listed
 *       with its field, what was expected and what came, so the model can correct itself.</li>
 *   <li><b>Approval</b> by {@link ApprovalMode} and {@link ApprovalRule}s, through the context's
 *       {@link ApprovalHandler}; a timeout denies.</li>
 *   <li><b>Run</b> on a virtual thread with the tool's timeout; a timed-out or cancelled tool is interrupted.</li>
 *   <li><b>Serialise</b> the output (typed tools) and <b>truncate</b> it to the byte budget.</li>
 *   <li><b>Hooks</b> after the call, in order: they may rewrite its result.</li>
 * </ol>
 *
 * <p>While a call runs, what it reports through {@link ToolContext#progress()} goes, coalesced and tagged with the
 * call, to the context's {@link ToolProgressListener}, never into the result.
 *
 * <p>An exception from a tool becomes a curated message; its stack trace goes to the log, never to
 * the model. One executor serves one agent (it holds that agent's policy and approval settings and
 * remembers session approvals); it is thread-safe.
 */
public final class ToolExecutor {
    private static final Logger LOG = LoggerFactory.getLogger(ToolExecutor.class);

    /** The default output budget: 16 KiB. */
    public static final int DEFAULT_OUTPUT_BUDGET_BYTES = 16 * 1024;
    /** The default shortest time between two progress reports of a call: 100 ms. */
    public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofMillis(100);

    private final ToolRegistry registry;
    private final ToolPolicy policy;
    private final ApprovalGate approvals;
    private final Duration approvalTimeout;
    private final PipelineResults pipeline;
    private final ApprovalStage approval;
    private final ToolInvoker invoker;
    private final HookChain hooks;
    private final Duration progressInterval;
    private final LongSupplier nanoClock;

    private ToolExecutor(Builder b) {
        this.registry = b.registry;
        this.policy = b.policy;
        this.approvals = new ApprovalGate(b.approvalMode, b.rules);
        this.approvalTimeout = b.approvalTimeout;
        this.pipeline = new PipelineResults(b.outputBudgetBytes);
        this.approval = new ApprovalStage(approvals, b.approvalTimeout, pipeline, LOG);
        this.invoker = new ToolInvoker(pipeline, LOG);
        this.hooks = new HookChain(b.hooks, b.outputBudgetBytes);
        this.progressInterval = b.progressInterval;
        this.nanoClock = b.nanoClock;
    }

    /** Starts an executor over {@code registry}, with defaults: allow all, {@link ApprovalMode#AUTO}, 16 KiB. */
    public static Builder builder(ToolRegistry registry) {
        return new Builder(registry);
    }

    public ToolRegistry registry() {
        return registry;
    }

    public ToolPolicy policy() {
        return policy;
    }

    public ApprovalMode approvalMode() {
        return approvals.mode();
    }

    /**
     * Whether some call of a registered tool the policy permits could stop to ask for approval, whatever its
     * arguments: it {@linkplain DynamicTool#alwaysNeedsApproval() always needs approval}, an always-ask rule may
     * match it, or it is not read-only and the mode asks for it (not
     * {@link ApprovalMode#YOLO}, and in {@link ApprovalMode#AUTO} no auto-approve rule covers every call of it).
     * Approvals remembered for a session are not counted, so {@code true} means "may", never "will". A host can
     * run calls without its approval plumbing when this is {@code false}.
     */
    public boolean mayAskForApproval() {
        for (DynamicTool tool : registry.list()) {
            if (policy.permits(tool.name()) && approvals.mayAsk(tool)) {
                return true;
            }
        }
        return false;
    }

    /** How long a call waits for an approval's answer before it is denied. */
    public Duration approvalTimeout() {
        return approvalTimeout;
    }

    /**
     * The approval request the call would make if it ran now: empty when it would run without asking, or fail before
     * asking (unknown tool, denied by policy, invalid arguments). A host that gathers the approvals of several calls
     * before running any (Letta's clients answer them together) asks with this request and later runs the call with a
     * handler that answers it. The {@link ToolHook}s are not run here (they run once, when the call runs), so a hook
     * that rewrites the arguments is not reflected. Never throws.
     */
    public Optional<ApprovalRequest> approvalRequest(ToolCall call, ToolContext context) {
        try {
            Optional<ToolRegistry.RegisteredTool> found = registry.entry(call.name());
            if (found.isEmpty() || !policy.permits(call.name())) {
                return Optional.empty();
            }
            DynamicTool tool = found.get().tool();
            String raw = call.arguments().isBlank() ? "{}" : call.arguments();
            JsonNode args = Json.MAPPER.readTree(raw);
            if (!args.isObject() || !found.get().validator().problems(args).isEmpty()) {
                return Optional.empty();
            }
            ApprovalGate.Need need = approvals.need(tool, args);
            if (need == ApprovalGate.Need.NO || (need == ApprovalGate.Need.UNLESS_APPROVED_FOR_SESSION
                    && approvals.approvedForSession(context, ApprovalStage.approvalKey(tool, args)))) {
                return Optional.empty();
            }
            Optional<String> preview = tool instanceof ParsedArgumentsTool parsed
                    ? parsed.approvalPreviewParsed(args, context)
                    : tool.approvalPreview(raw, context);
            return Optional.of(new ApprovalRequest(tool.name(), tool.safetyTier(), raw, preview, context, call.id()));
        } catch (Exception e) {
            // The call itself will meet the same problem when it runs, and answer it there.
            return Optional.empty();
        }
    }

    /**
     * The result of a call that ran outside this pipeline (a client ran it), its content cut to the output budget as
     * the pipeline's own results are.
     */
    public ToolResult resultOf(ToolCall call, ToolStatus status, String content) {
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(status, "status");
        return pipeline.finish(call, System.nanoTime(), status, Objects.requireNonNull(content, "content"),
                Truncation.KEEP_HEAD);
    }

    /** Runs one call through the whole pipeline. Never throws. */
    public ToolResult execute(ToolCall call, ToolContext context) {
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(context, "context");
        long start = System.nanoTime();
        ProgressCoalescer progress = context.progressListener().map(l -> new ProgressCoalescer(call, l,
                progressInterval.toNanos(), nanoClock, ToolProgressListener.MAX_CHUNK_CHARS)).orElse(null);
        ToolContext ofCall = context;
        if (!call.id().isBlank() || progress != null) {
            ToolContext.Builder b = context.toBuilder();
            if (!call.id().isBlank()) {
                b.callId(call.id());
            }
            if (progress != null) {
                b.progress(progress);
            }
            ofCall = b.build();
        }
        try {
            return run(call, ofCall, start, progress);
        } catch (Throwable t) {
            // The stages below handle every expected failure; this is the last line of defence.
            LOG.error("Tool pipeline failed unexpectedly for call {} to '{}'", call.id(), call.name(), t);
            return pipeline.finish(call, start, ToolStatus.FAILED, PipelineResults.internalError(call.name()),
                    Truncation.KEEP_HEAD);
        } finally {
            if (progress != null) {
                progress.close(); // the call's last report comes before its result
            }
        }
    }

    /**
     * Runs the calls of one model turn. Consecutive {@link SafetyTier#READ_ONLY} calls run
     * concurrently; every other call runs alone, after the calls before it finished and before the
     * calls after it start, so side effects happen one at a time in the order the model gave.
     * Results come back in the model's order. Never throws.
     */
    public List<ToolResult> executeAll(List<ToolCall> calls, ToolContext context) {
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(context, "context");
        ToolResult[] results = new ToolResult[calls.size()];
        int i = 0;
        while (i < calls.size()) {
            if (!isReadOnly(calls.get(i))) {
                results[i] = execute(calls.get(i), context);
                i++;
                continue;
            }
            int end = i;
            while (end < calls.size() && isReadOnly(calls.get(end))) {
                end++;
            }
            if (end - i == 1) {
                results[i] = execute(calls.get(i), context);
            } else {
                runConcurrently(calls, i, end, context, results);
            }
            i = end;
        }
        return List.of(results);
    }

    private void runConcurrently(List<ToolCall> calls, int from, int to, ToolContext context, ToolResult[] results) {
        List<Future<ToolResult>> futures = new ArrayList<>(to - from);
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int k = from; k < to; k++) {
                ToolCall call = calls.get(k);
                futures.add(pool.submit(() -> execute(call, context)));
            }
            for (int k = from; k < to; k++) {
                try {
                    results[k] = futures.get(k - from).get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    context.cancellation().cancel();
                    results[k] = PipelineResults.cancelled(calls.get(k));
                } catch (ExecutionException e) {
                    // execute() never throws; keep the contract even if it did.
                    LOG.error("Tool call {} failed unexpectedly", calls.get(k).id(), e.getCause());
                    results[k] = ToolResult.withoutEffects(calls.get(k), ToolStatus.FAILED,
                            PipelineResults.internalError(calls.get(k).name()));
                }
            }
        }
    }

    private boolean isReadOnly(ToolCall call) {
        return registry.find(call.name()).map(t -> t.safetyTier() == SafetyTier.READ_ONLY).orElse(false);
    }

    private ToolResult run(ToolCall call, ToolContext context, long start, ProgressCoalescer progress) {
        String name = call.name();
        if (context.cancellation().isCancelled()) {
            return pipeline.finish(call, start, ToolStatus.CANCELLED,
                    "Tool call '" + name + "' was cancelled before it ran.", Truncation.KEEP_HEAD);
        }

        // 1. Lookup
        Optional<ToolRegistry.RegisteredTool> found = registry.entry(name);
        if (found.isEmpty()) {
            List<String> available = registry.names().stream().filter(policy::permits).toList();
            return pipeline.finish(call, start, ToolStatus.UNKNOWN_TOOL, "Unknown tool '" + name + "'. "
                    + (available.isEmpty() ? "No tools are available."
                            : "Available tools: " + String.join(", ", available) + "."),
                    Truncation.KEEP_HEAD);
        }
        DynamicTool tool = found.get().tool();

        // 2. Policy
        if (!policy.permits(name)) {
            return pipeline.finish(call, start, ToolStatus.DENIED_BY_POLICY,
                    "Tool '" + name + "' is not allowed for this agent.", Truncation.KEEP_HEAD);
        }
        if (hooks.isEmpty()) {
            return runTool(call, found.get(), context, start, progress);
        }

        // 3. Hooks before the call
        HookChain.Gate gate = hooks.before(call, context);
        if (gate.refused()) {
            return pipeline.finish(call, start, gate.status(), gate.refusal(), Truncation.KEEP_HEAD);
        }
        ToolResult result = runTool(gate.call(), found.get(), context, start, progress);
        // 9. Hooks after the call
        return hooks.after(gate.call(), result, gate.notes(), context, start);
    }

    /** The stages from parsing the arguments to truncating the output. */
    private ToolResult runTool(ToolCall call, ToolRegistry.RegisteredTool found, ToolContext context, long start,
            ProgressCoalescer progress) {
        DynamicTool tool = found.tool();

        // 4. Parse and validate
        JsonNode args;
        String raw = call.arguments().isBlank() ? "{}" : call.arguments();
        try {
            args = Json.MAPPER.readTree(raw);
        } catch (JacksonException e) {
            return invalid(call, start, "malformed JSON: " + e.getOriginalMessage()
                    + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr())
                    + ". Send the arguments as one JSON object.");
        }
        if (!args.isObject()) {
            return invalid(call, start, "expected a JSON object, got " + Json.typeName(args) + " " + Json.preview(args));
        }
        List<String> problems = found.validator().problems(args);
        if (!problems.isEmpty()) {
            return invalid(call, start, String.join("; ", problems));
        }

        // 5. Approval
        Optional<ToolResult> refusal = approval.approve(call, tool, args, raw, context, start);
        if (refusal.isPresent()) {
            return refusal.get();
        }

        // 6. Run, 7. serialise (inside the tool adapter), 8. truncate (in finish)
        return invoker.invoke(call, tool, args, raw, context, start, progress);
    }

    private ToolResult invalid(ToolCall call, long start, String problems) {
        return pipeline.finish(call, start, ToolStatus.INVALID_ARGUMENTS,
                "Tool '" + call.name() + "' arguments invalid: " + problems, Truncation.KEEP_HEAD);
    }

    /** Configures a {@link ToolExecutor}; every setter validates at once. */
    public static final class Builder {
        private final ToolRegistry registry;
        private ToolPolicy policy = ToolPolicy.allowAll();
        private ApprovalMode approvalMode = ApprovalMode.AUTO;
        private final List<ApprovalRule> rules = new ArrayList<>();
        private Duration approvalTimeout = Duration.ofMinutes(5);
        private int outputBudgetBytes = DEFAULT_OUTPUT_BUDGET_BYTES;
        private final List<ToolHook> hooks = new ArrayList<>();
        private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder(ToolRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry must not be null");
        }

        public Builder policy(ToolPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy must not be null");
            return this;
        }

        public Builder approvalMode(ApprovalMode mode) {
            this.approvalMode = Objects.requireNonNull(mode, "approval mode must not be null");
            return this;
        }

        /** Adds a rule; rules are checked in the order added, and any matching always-ask rule wins. */
        public Builder approvalRule(ApprovalRule rule) {
            rules.add(Objects.requireNonNull(rule, "approval rule must not be null"));
            return this;
        }

        /** How long to wait for an approval answer before denying; default 5 minutes. */
        public Builder approvalTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "approval timeout must not be null");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("approval timeout must be positive, got " + timeout);
            }
            this.approvalTimeout = timeout;
            return this;
        }

        /** The UTF-8 byte budget of a result's content; default 16 KiB, at least 256. */
        public Builder outputBudgetBytes(int bytes) {
            if (bytes < Truncator.MIN_BUDGET) {
                throw new IllegalArgumentException("output budget must be at least " + Truncator.MIN_BUDGET
                        + " bytes to leave room for the truncation notice, got " + bytes);
            }
            this.outputBudgetBytes = bytes;
            return this;
        }

        /** Adds a hook around every call; hooks run in the order added (see {@link ToolHook}). */
        public Builder hook(ToolHook hook) {
            hooks.add(Objects.requireNonNull(hook, "tool hook must not be null"));
            return this;
        }

        /**
         * How often at most a call's progress is passed to the context's {@link ToolProgressListener}; reports in
         * between are gathered into one. Default 100 ms.
         */
        public Builder progressInterval(Duration interval) {
            Objects.requireNonNull(interval, "progress interval must not be null");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("progress interval must be positive, got " + interval);
            }
            this.progressInterval = interval;
            return this;
        }

        /** The clock of the progress interval, for tests. */
        Builder nanoClock(LongSupplier clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public ToolExecutor build() {
            return new ToolExecutor(this);
        }
    }
}
