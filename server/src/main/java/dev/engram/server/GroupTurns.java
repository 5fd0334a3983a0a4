package dev.engram.server;

import dev.engram.agents.Agent;
import dev.engram.memory.Group;
import dev.engram.memory.GroupManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A message to a group ({@code POST /v1/groups/{group_id}/messages}): the group's manager type's loop over its agents,
 * each speaker's turn a turn of that agent as {@code /v1/agents/{id}/messages} runs it (under its turn lock, as a run
 * of its own), in the group's session (the group's id), so the group's messages are those of its members stored under
 * it, while each member keeps its own history in context. The answer is one {@code LettaResponse} with every turn's
 * messages in order, the usage summed and every run named.
 *
 * <ul>
 *   <li>round robin: each member speaks in turn, {@code max_turns} turns (one per member by default), each reading
 *       what was said since it last spoke;
 *   <li>supervisor: the manager agent answers; it delegates to the members with the multi-agent tools;
 *   <li>dynamic: the manager agent names who speaks next (among the members but the last speaker) until a reply holds
 *       the termination token or {@code max_turns} turns were taken;
 *   <li>sleep-time: the manager agent answers; every {@code sleeptime_agent_frequency} group messages, each member
 *       then reads that exchange on a thread of its own, after the answer.
 * </ul>
 * A speaker's turn that does not end with an answer (it waits for an approval, hit its step cap, was cancelled) ends
 * the group's loop with its stop reason.
 */
final class GroupTurns {
    private static final Logger LOG = LoggerFactory.getLogger(GroupTurns.class);
    /** Group turns see every message; the request's types filter the answer at the end. */
    private static final TurnViews.View FULL = new TurnViews.View(true, Optional.empty());

    private final Api api;

    GroupTurns(Api api) {
        this.api = api;
    }

    /** One entry of the group's exchange: who said it (empty: the user) and what. */
    private record Said(Optional<Agent> speaker, String text) {
    }

    /** The answer being built: the turns' messages, usage and runs, and the last stop reason. */
    private static final class Answer {
        final List<ObjectNode> messages = new ArrayList<>();
        long prompt;
        long completion;
        long steps;
        final List<String> runs = new ArrayList<>();
        String stopReason = "end_turn";

        void add(ObjectNode response) {
            response.path("messages").forEach(m -> messages.add((ObjectNode) m));
            JsonNode u = response.path("usage");
            prompt += u.path("prompt_tokens").asLong(0);
            completion += u.path("completion_tokens").asLong(0);
            steps += u.path("step_count").asLong(0);
            u.path("run_ids").forEach(r -> runs.add(r.asString()));
            stopReason = response.path("stop_reason").path("stop_reason").asString("end_turn");
        }

        boolean goOn() {
            return stopReason.equals("end_turn") || stopReason.equals("no_tool_call") || stopReason.equals("tool_rule");
        }

        ObjectNode json(TurnViews.View view) {
            ObjectNode out = Body.JSON.createObjectNode();
            ArrayNode shown = out.putArray("messages");
            messages.stream().filter(m -> view.types().map(t -> t.contains(m.path("message_type").asString())).orElse(true))
                    .forEach(shown::add);
            out.set("stop_reason", TurnViews.stopReasonMessage(stopReason));
            ObjectNode usage = out.putObject("usage").put("message_type", "usage_statistics");
            usage.put("completion_tokens", completion).put("prompt_tokens", prompt).put("total_tokens", prompt + completion)
                    .put("step_count", steps);
            runs.forEach(usage.putArray("run_ids")::add);
            return out;
        }
    }

    /**
     * Runs the group's loop for the message {@code body} holds and answers it.
     *
     * @throws ApiException 422 for a body that is not a plain message (an approval, images, streaming), before any turn
     */
    ObjectNode send(Group group, List<Agent> members, Optional<Agent> manager, Body body) {
        Agent first = manager.orElse(members.getFirst());
        TurnRequest request = TurnRequest.of(first, body, api.messageLimits(), false);
        if (request.streaming()) {
            throw body.problem("value_error", "A group's answer does not stream; send it without streaming.", "streaming");
        }
        if (!(request.input() instanceof TurnRequest.Input.Message m)) {
            throw body.problem("value_error", "A group message is a user message; answer an approval at the agent that asked "
                    + "(POST /v1/agents/{agent_id}/messages).", "messages");
        }
        if (!m.images().isEmpty() || !m.clientTools().isEmpty()) {
            throw body.problem("value_error", "A group message is text only (no images or client tools).", "messages");
        }
        String session = group.id();
        Answer answer = new Answer();
        GroupManager config = group.spec().manager();
        switch (config.type()) {
            case ROUND_ROBIN -> roundRobin(members, config.maxTurns().orElse(members.size()), session, m.text(), answer);
            case SUPERVISOR -> answer.add(turn(manager.orElseThrow(), session, m.text()));
            case DYNAMIC -> dynamic(group, members, manager.orElseThrow(), session, m.text(), answer);
            case SLEEPTIME -> sleeptime(group, members, manager.orElseThrow(), session, m.text(), answer);
        }
        api.store.groups().countTurn(group.userId(), group.id());
        return answer.json(request.view());
    }

    private ObjectNode turn(Agent agent, String session, String text) {
        TurnRequest r = new TurnRequest(new TurnRequest.Input.Message(text, List.of()), FULL, false, false, false);
        return api.runs.respond(api, agent, session, r);
    }

    private void roundRobin(List<Agent> members, int turns, String session, String text, Answer answer) {
        List<Said> history = new ArrayList<>(List.of(new Said(Optional.empty(), text)));
        int[] seen = new int[members.size()];
        for (int i = 0; i < turns && answer.goOn(); i++) {
            int speaker = i % members.size();
            speak(members.get(speaker), speaker, seen, history, session, answer);
        }
    }

    /** The speaker reads what was said since it last spoke, answers, and its reply joins the history. */
    private String speak(Agent speaker, int index, int[] seen, List<Said> history, String session, Answer answer) {
        String input = render(history.subList(seen[index], history.size()), speaker);
        ObjectNode response = turn(speaker, session, input);
        answer.add(response);
        String reply = replyText(response);
        history.add(new Said(Optional.of(speaker), reply));
        seen[index] = history.size();
        return reply;
    }

    private void dynamic(Group group, List<Agent> members, Agent manager, String session, String text, Answer answer) {
        GroupManager config = group.spec().manager();
        String token = config.terminationToken().orElse(GroupManager.DEFAULT_TERMINATION_TOKEN);
        List<Said> history = new ArrayList<>(List.of(new Said(Optional.empty(), text)));
        int[] seen = new int[members.size()];
        Optional<Agent> last = Optional.empty();
        int turns = config.maxTurns().orElse(members.size());
        for (int i = 0; i < turns && answer.goOn(); i++) {
            Optional<Agent> previous = last;
            List<Agent> options = members.size() == 1 ? members
                    : members.stream().filter(a -> previous.map(p -> !p.id().equals(a.id())).orElse(true)).toList();
            ObjectNode choice = turn(manager, session, chooserPrompt(group, history, options));
            answer.add(choice);
            if (!answer.goOn()) {
                return;
            }
            Optional<Agent> chosen = chosen(replyText(choice), options);
            if (chosen.isEmpty()) {
                LOG.info("The manager of group {} named none of {}; the group's turn ends", group.id(),
                        options.stream().map(Agent::id).toList());
                return;
            }
            last = chosen;
            String reply = speak(chosen.get(), members.indexOf(chosen.get()), seen, history, session, answer);
            if (reply.contains(token)) {
                return;
            }
        }
    }

    private void sleeptime(Group group, List<Agent> members, Agent manager, String session, String text, Answer answer) {
        ObjectNode response = turn(manager, session, text);
        answer.add(response);
        int frequency = group.spec().manager().sleeptimeAgentFrequency().orElse(1);
        if ((group.turnsCounter() + 1) % frequency != 0) {
            return;
        }
        String transcript = "[Recent conversation of agent '" + manager.name() + "' (" + manager.id() + ") to learn from; "
                + "do not answer it]\nuser: " + text + "\n" + manager.name() + ": " + replyText(response);
        for (Agent member : members) {
            if (!member.id().equals(manager.id())) {
                Thread.ofVirtual().name("engram-group-sleeptime").start(RequestIds.carry(() -> {
                    try {
                        turn(member, session, transcript);
                    } catch (RuntimeException e) {
                        LOG.warn("Sleep-time agent {} of group {} failed: {}", member.id(), group.id(), e.toString());
                    }
                }));
            }
        }
    }

    /** What the dynamic manager is asked: the group's exchange and whom it may name. */
    private static String chooserPrompt(Group group, List<Said> history, List<Agent> options) {
        StringBuilder b = new StringBuilder("[You manage the group chat '").append(group.spec().description())
                .append("'. The conversation so far:]\n");
        for (Said s : history) {
            b.append(s.speaker().map(Agent::name).orElse("user")).append(": ").append(s.text()).append('\n');
        }
        b.append("[Who should speak next? Answer with exactly one name of: ");
        b.append(String.join(", ", options.stream().map(a -> a.name() + " (" + a.id() + ")").toList())).append(".]");
        return b.toString();
    }

    /** The option whose id, else whose name, the manager's reply holds. */
    static Optional<Agent> chosen(String reply, List<Agent> options) {
        String lower = reply.toLowerCase(Locale.ROOT);
        Optional<Agent> byId = options.stream().filter(a -> lower.contains(a.id().toLowerCase(Locale.ROOT))).findFirst();
        return byId.or(() -> options.stream().filter(a -> lower.contains(a.name().toLowerCase(Locale.ROOT))).findFirst());
    }

    /** What the speaker reads: the user's message as it is, the others' replies each named. */
    private static String render(List<Said> since, Agent speaker) {
        List<String> parts = new ArrayList<>();
        for (Said s : since) {
            if (s.speaker().filter(a -> a.id().equals(speaker.id())).isPresent()) {
                continue;
            }
            parts.add(s.speaker().map(a -> "[Message from agent '" + a.name() + "' (" + a.id() + ") in the group] " + s.text())
                    .orElse(s.text()));
        }
        return parts.isEmpty() ? "[Your turn in the group.]" : String.join("\n\n", parts);
    }

    /** The text of a turn's assistant messages, joined. */
    static String replyText(ObjectNode response) {
        List<String> out = new ArrayList<>();
        for (JsonNode m : response.path("messages")) {
            if (m.path("message_type").asString("").equals("assistant_message")) {
                JsonNode c = m.path("content");
                if (c.isString()) {
                    out.add(c.asString());
                } else {
                    c.forEach(part -> out.add(part.path("text").asString("")));
                }
            }
        }
        return String.join("\n", out);
    }
}
