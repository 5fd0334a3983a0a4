package dev.engram.agents;

import dev.engram.memory.Schedule;
import java.util.Optional;

/**
 * One firing of a {@link Schedule}, delivered by the {@link AgentScheduler} as a turn of its agent.
 *
 * @param schedule the schedule as claimed for this firing (its {@code nextRunAt} is when the firing was due)
 * @param message  the text the agent received: the schedule's message after a line that marks it as scheduled,
 *                 and late when it is
 * @param late     whether it was delivered after its time (the scheduler was not running when it was due)
 * @param missed   for a recurring schedule delivered late, how many further firings passed meanwhile; they are not
 *                 repeated, this delivery stands for them
 * @param response the agent's response; empty when the turn did not complete
 * @param error    why the turn did not complete; empty when it did
 */
public record ScheduledDelivery(Schedule schedule, String message, boolean late, int missed,
        Optional<AgentResponse> response, Optional<String> error) {
}
