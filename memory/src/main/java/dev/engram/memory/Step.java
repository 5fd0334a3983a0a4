package dev.engram.memory;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;

/**
 * One step of a {@link Run}: one call to the agent's model and what came of it (Letta's step). Kept with its run and
 * purged with it.
 *
 * @param id               {@code step-<uuid>}
 * @param userId           the user whose agent took it
 * @param agentId          the agent
 * @param runId            the run it belongs to
 * @param model            the model as the agent's definition names it ({@code openai/gpt-4o-mini})
 * @param provider         the provider part of the model's name ({@code openai}), or empty when it has none
 * @param promptTokens     prompt tokens the provider reported (0 when it did not)
 * @param completionTokens completion tokens the provider reported
 * @param request          what the model was asked, as a compact JSON reference: the ids of the stored messages in its
 *                         prompt, the tools offered and the prompt's size ({@code {}} when unknown)
 * @param response         what it answered, as JSON: its text and tool calls ({@code {}} when it failed)
 * @param messageIds       the ids of the messages the step stored (the model's answer, the tools' results; a run's
 *                         first step also the turn's input, as Letta stores it), in order
 * @param stopReason       Letta's stop reason of the step: the turn's where the turn stopped after it, else
 *                         {@code tool_call}
 * @param status           {@code success}, {@code failed} or {@code cancelled} (Letta's {@code StepStatus})
 * @param startedAt        when the step began
 * @param modelTime        how long the model call took
 * @param completedAt      when the step ended (its tools had run)
 * @param feedback         {@code positive}, {@code negative}, or empty for none
 * @param tags             labels given with the feedback
 */
public record Step(String id, String userId, String agentId, String runId, String model, String provider,
        int promptTokens, int completionTokens, String request, String response, List<Long> messageIds,
        String stopReason, String status, Instant startedAt, Duration modelTime, Instant completedAt, String feedback,
        List<String> tags) {
    /** The prefix of a step's id. */
    public static final String ID_PREFIX = "step-";
    /** The statuses a step ends with. */
    public static final Set<String> STATUSES = Set.of("success", "failed", "cancelled");
    /** The feedback a step may have (or none, empty). */
    public static final Set<String> FEEDBACK = Set.of("positive", "negative");

    public Step {
        Checks.id(id, "step id");
        if (!id.startsWith(ID_PREFIX)) {
            throw new IllegalArgumentException("a step id starts with '" + ID_PREFIX + "', got '" + id + "'");
        }
        Checks.id(userId, "user id");
        Checks.id(agentId, "agent id");
        Checks.id(runId, "run id");
        Checks.unicode(model, "model");
        Checks.unicode(provider, "provider");
        if (promptTokens < 0 || completionTokens < 0) {
            throw new IllegalArgumentException("a step's token counts are 0 or more, got " + promptTokens + " and "
                    + completionTokens);
        }
        Checks.unicode(request, "request");
        Checks.unicode(response, "response");
        messageIds = List.copyOf(messageIds);
        Checks.unicode(stopReason, "stop reason");
        if (!STATUSES.contains(status)) {
            throw new IllegalArgumentException("a step's status is one of " + STATUSES + ", got '" + status + "'");
        }
        startedAt = Checks.notNull(startedAt, "startedAt").truncatedTo(ChronoUnit.MICROS);
        Checks.notNull(modelTime, "modelTime");
        if (modelTime.isNegative()) {
            throw new IllegalArgumentException("a step's model time is not negative, got " + modelTime);
        }
        completedAt = Checks.notNull(completedAt, "completedAt").truncatedTo(ChronoUnit.MICROS);
        if (completedAt.isBefore(startedAt)) {
            throw new IllegalArgumentException("a step ends after it starts (" + startedAt + " to " + completedAt + ")");
        }
        Checks.notNull(feedback, "feedback");
        if (!feedback.isEmpty() && !FEEDBACK.contains(feedback)) {
            throw new IllegalArgumentException("a step's feedback is positive, negative or none, got '" + feedback + "'");
        }
        tags = List.copyOf(tags);
        tags.forEach(t -> Checks.text(t, "tag"));
    }

    /** A new step id ({@code step-<uuid>}, time-ordered). */
    public static String newId() {
        return Ids.next("step");
    }

    /** All its tokens. */
    public int totalTokens() {
        return promptTokens + completionTokens;
    }

    /** The same step with this feedback ({@code positive}, {@code negative} or empty) and these tags. */
    public Step withFeedback(String newFeedback, List<String> newTags) {
        return new Step(id, userId, agentId, runId, model, provider, promptTokens, completionTokens, request, response,
                messageIds, stopReason, status, startedAt, modelTime, completedAt, newFeedback, newTags);
    }

    /** The same step, of that run and user (the server knows the run only once the step is taken). */
    public Step inRun(String newUserId, String newRunId) {
        return new Step(id, newUserId, agentId, newRunId, model, provider, promptTokens, completionTokens, request,
                response, messageIds, stopReason, status, startedAt, modelTime, completedAt, feedback, tags);
    }
}
