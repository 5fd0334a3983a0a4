package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentStreamListener;
import dev.engram.agents.ClientAnswer;
import dev.engram.agents.ClientCall;
import dev.engram.framework.ApprovalDecision;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * The answer to the calls a paused turn waits on, as Letta's clients send it: an {@code ApprovalCreate} whose
 * {@code approvals} hold, for each waiting call, either a {@code ToolReturn} ({@code "type": "tool"}: the client ran a
 * client tool; its {@code tool_return} a string or a list of text parts, its {@code status} {@code success} or
 * {@code error}) or an {@code ApprovalReturn} ({@code "type": "approval"}, {@code approve} true or false: the agent's own
 * tool runs if approved); Letta's older single form ({@code approve} with an {@code approval_request_id}); or a
 * {@code ToolReturnCreate} ({@code "type": "tool_return"} with {@code tool_returns}). Malformed entries are a 422
 * naming the field; an answer that does not answer exactly the waiting calls is a 400 saying what is missing or extra,
 * and the turn still waits.
 */
final class ApprovalAnswers {
    private ApprovalAnswers() {
    }

    /** One entry: a decision or a result for a call ({@code callId} empty in the older form, which names the request). */
    sealed interface Entry {
        String callId();

        record Decision(String callId, boolean approve, Optional<String> reason) implements Entry {
        }

        record Result(String callId, String content, boolean failed) implements Entry {
        }
    }

    /** The entries of an approval message (or {@code tool_return} message), checked for shape and duplicate ids. */
    static TurnRequest.Input.Approval decode(Body m) {
        boolean toolReturns = m.string("type").orElse("approval").equals("tool_return");
        Optional<List<Body>> list = m.objects(toolReturns ? "tool_returns" : "approvals");
        if (toolReturns || (list.isPresent() && !list.get().isEmpty())) {
            List<Body> items = list.orElseThrow(() -> m.problem("missing", "Field required", "tool_returns"));
            if (items.isEmpty()) {
                throw m.problem("too_short", "List should have at least 1 item", toolReturns ? "tool_returns" : "approvals");
            }
            Set<String> seen = new HashSet<>();
            List<Entry> entries = items.stream().map(a -> entry(a, toolReturns)).toList();
            for (int i = 0; i < entries.size(); i++) {
                if (!seen.add(entries.get(i).callId())) {
                    throw items.get(i).problem("value_error", "tool_call_id '" + entries.get(i).callId()
                            + "' is answered twice; answer each call once", "tool_call_id");
                }
            }
            return new TurnRequest.Input.Approval(entries, "");
        }
        boolean approve = m.bool("approve").orElseThrow(() -> m.problem("missing", "Field required", "approve"));
        return new TurnRequest.Input.Approval(List.of(new Entry.Decision("", approve, m.string("reason"))),
                m.requiredString("approval_request_id"));
    }

    private static Entry entry(Body a, boolean toolReturn) {
        String type = a.string("type").orElse(toolReturn ? "tool" : "approval");
        String callId = a.requiredString("tool_call_id");
        switch (type) {
            case "approval" -> {
                if (toolReturn) {
                    throw a.problem("literal_error", "Input should be 'tool'", "type");
                }
                return new Entry.Decision(callId, a.bool("approve").orElseThrow(() -> a.problem("missing", "Field required",
                        "approve")), a.string("reason"));
            }
            case "tool" -> {
                String status = a.requiredString("status");
                if (!status.equals("success") && !status.equals("error")) {
                    throw a.problem("enum", "Input should be 'success' or 'error'", "status");
                }
                a.strings("stdout");
                a.strings("stderr");
                JsonNode value = a.raw("tool_return").orElseThrow(() -> a.problem("missing", "Field required", "tool_return"));
                return new Entry.Result(callId, value.isString() ? value.asString() : parts(a, value), status.equals("error"));
            }
            default -> throw a.problem("literal_error", "Input should be 'approval' or 'tool'", "type");
        }
    }

    /** The text of a tool return's content parts; an image part is kept as a note, since results here are text. */
    private static String parts(Body a, JsonNode value) {
        if (!value.isArray()) {
            throw a.problem("string_type", "Input should be a valid string or a list of content parts", "tool_return");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < value.size(); i++) {
            Body part = Body.of(value.get(i), a.location("tool_return", String.valueOf(i)));
            String type = part.requiredString("type");
            String piece = switch (type) {
                case "text" -> part.requiredString("text");
                case "image" -> "[an image the tool returned; this server keeps the text of tool results only]";
                default -> throw part.problem("literal_error", "Input should be 'text' or 'image'", "type");
            };
            text.append(text.isEmpty() ? "" : "\n").append(piece);
        }
        return text.toString();
    }

    /**
     * Answers the calls {@code agent}'s running turn waits on with {@code approval}, directing the turn's stream events to
     * {@code listener}; the turn then goes on.
     *
     * @throws ApiException 400 if the turn waits on nothing, or the answer does not answer exactly its calls, each as it
     *                      can be (a client tool's call with its result or a denial, an agent's tool's with a decision)
     */
    static Turns.Running apply(Api api, Agent agent, TurnRequest.Input.Approval approval, AgentStreamListener listener) {
        Turns.Running r = api.turns.running(agent.scope()).filter(t -> !t.pending().isEmpty())
                .orElseThrow(() -> ApiException.badRequest("Agent '" + agent.id() + "' has no tool call waiting for approval."));
        List<Turns.Pending> waiting = r.pending();
        List<Entry> entries = approval.requestId().isEmpty() ? approval.entries() : named(r, waiting, approval);
        Map<String, Turns.Pending> byId = waiting.stream().collect(Collectors.toMap(Turns.Pending::callId, p -> p));
        Map<String, ClientAnswer> answers = new LinkedHashMap<>();
        for (Entry e : entries) {
            Turns.Pending p = byId.get(e.callId());
            if (p == null) {
                throw ApiException.badRequest("tool_call_id '" + e.callId() + "' is not waiting for an answer; the calls waiting "
                        + "are " + describe(waiting) + ".");
            }
            answers.put(e.callId(), switch (e) {
                case Entry.Result res when p.kind() == ClientCall.Kind.RUN -> new ClientAnswer.Ran(res.content(), res.failed());
                case Entry.Result res -> throw ApiException.badRequest("The call to '" + p.toolName() + "' (tool_call_id "
                        + p.callId() + ") runs on the server: answer it with an approval of type 'approval' (approve true or "
                        + "false), not with a result.");
                case Entry.Decision d when d.approve() && p.kind() == ClientCall.Kind.RUN -> throw ApiException.badRequest(
                        "'" + p.toolName() + "' (tool_call_id " + p.callId() + ") is a client tool: run it and send its result "
                        + "as an approval of type 'tool', or deny it with approve false.");
                case Entry.Decision d -> new ClientAnswer.Decided(d.approve() ? ApprovalDecision.approve()
                        : d.reason().map(ApprovalDecision::deny).orElse(ApprovalDecision.deny()));
            });
        }
        List<Turns.Pending> unanswered = waiting.stream().filter(p -> !answers.containsKey(p.callId())).toList();
        if (!unanswered.isEmpty()) {
            throw ApiException.badRequest("No answer for " + describe(unanswered) + ": answer every waiting call ("
                    + describe(waiting) + ") in one approval message.");
        }
        r.listen(listener);
        if (!api.turns.answer(r, answers)) {
            throw ApiException.badRequest("Agent '" + agent.id() + "' has no tool call waiting for approval.");
        }
        return r;
    }

    /** The older form's decision for every waiting call its {@code approval_request_id} names. */
    private static List<Entry> named(Turns.Running r, List<Turns.Pending> waiting, TurnRequest.Input.Approval approval) {
        Entry.Decision d = (Entry.Decision) approval.entries().getFirst();
        List<Entry> out = waiting.stream().filter(p -> requestIds(r, p).contains(approval.requestId()))
                .<Entry>map(p -> new Entry.Decision(p.callId(), d.approve(), d.reason())).toList();
        if (out.isEmpty()) {
            throw ApiException.badRequest("approval_request_id '" + approval.requestId() + "' does not name the call "
                    + "waiting for approval (" + describe(waiting) + ").");
        }
        return out;
    }

    /** The ids the approval request of a waiting call may have been shown with: its stored message's, or its own. */
    private static Set<String> requestIds(Turns.Running turn, Turns.Pending p) {
        Set<String> ids = new HashSet<>(Set.of("approval-" + p.callId()));
        turn.messageWithCall(p.callId()).ifPresent(m -> ids.add(Ids.message(m.id())));
        return ids;
    }

    private static String describe(List<Turns.Pending> calls) {
        return calls.stream().map(p -> "tool_call_id " + p.callId() + " ('" + p.toolName() + "')").collect(Collectors.joining(", "));
    }
}
