package dev.engram.agents;

import dev.engram.framework.model.ChatModel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a runtime's agents share: their models, resolved once per spec, and the listeners of their events. */
final class RuntimeHub {
    private static final Logger LOG = LoggerFactory.getLogger(RuntimeHub.class);

    private final Map<String, ChatModel> models = new ConcurrentHashMap<>();
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
        return models.computeIfAbsent(spec, s -> {
            try {
                return resolver.apply(s);
            } catch (RuntimeException e) {
                throw new AgentException("Cannot use model '" + s + "': " + e.getMessage() + ". " + GIVE_A_MODEL, e);
            }
        });
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
