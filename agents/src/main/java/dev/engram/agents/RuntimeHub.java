package dev.engram.agents;

import dev.engram.framework.model.ChatModel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a runtime's agents share: their models, resolved once per spec, and the listeners of their events. The models
 * registered with the runtime are kept; of those resolved from a spec, at most {@link #MAX_RESOLVED} (more distinct specs
 * than that start the memory over: a spec is resolved again at its next use).
 */
final class RuntimeHub {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeHub.class);
    /** The most models resolved from specs that are kept: a bound, far above the models one server uses. */
    static final int MAX_RESOLVED = 256;

    private final Map<String, ChatModel> models = new ConcurrentHashMap<>();
    private final Map<String, ChatModel> resolved = new ConcurrentHashMap<>();
    /** How to give an agent whose model cannot be used another one, over the API and on the command line. */
    static final String GIVE_A_MODEL = "Give the agent a model Engram runs (e.g. openai:gpt-4o-mini): over the API with "
            + "PATCH /v1/agents/{agent_id} and a \"model\", or import its file again with a model (engram agent import FILE "
            + "--model SPEC).";

    private final Function<String, ChatModel> resolver;
    private final List<AgentListener> listeners = new CopyOnWriteArrayList<>();

    RuntimeHub(Map<String, ChatModel> models, Function<String, ChatModel> resolver, List<AgentListener> listeners) {
        this.models.putAll(models);
        this.resolver = resolver;
        this.listeners.addAll(listeners);
    }

    List<AgentListener> listeners() {
        return listeners;
    }

    /** The model of a spec, resolved on first use and kept. */
    ChatModel model(String spec) {
        ChatModel registered = models.get(spec);
        if (registered != null) {
            return registered;
        }
        ChatModel known = resolved.get(spec);
        if (known != null) {
            return known;
        }
        ChatModel model;
        try {
            model = resolver.apply(spec);
        } catch (RuntimeException e) {
            throw new AgentException("Cannot use model '" + spec + "': " + e.getMessage() + ". " + GIVE_A_MODEL, e);
        }
        if (model == null) {
            throw new AgentException("Cannot use model '" + spec + "': the runtime's model resolver gave none. " + GIVE_A_MODEL);
        }
        if (resolved.size() >= MAX_RESOLVED) {
            resolved.clear();
        }
        ChatModel raced = resolved.putIfAbsent(spec, model);
        return raced == null ? model : raced;
    }

    /** How many models resolved from specs are kept now. */
    int resolvedCount() {
        return resolved.size();
    }

    /** Hands an event to every listener; a listener that fails is logged and the others still hear it. */
    void emit(AgentEvent event) {
        for (AgentListener l : listeners) {
            try {
                l.onEvent(event);
            } catch (RuntimeException e) {
                LOG.warn("Agent listener {} failed on {}", l, event.getClass().getSimpleName(), e);
            }
        }
    }
}
