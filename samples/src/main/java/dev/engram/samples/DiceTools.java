package dev.engram.samples;

import dev.engram.framework.SafetyTier;
import dev.engram.framework.Tool;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import java.util.random.RandomGenerator;

/**
 * Tools written as annotated methods: the {@code @Tool} processor generates {@code DiceTools_Tools}
 * at compile time (schema from the parameters, descriptions from the javadoc), and
 * {@code registry.registerAnnotated(new DiceTools(...))} registers them.
 */
public class DiceTools {
    private final RandomGenerator random;

    public DiceTools(RandomGenerator random) {
        this.random = random;
    }

    /**
     * Rolls dice and returns their sum.
     *
     * @param count how many dice, 1 to 20
     * @param sides how many sides each die has, e.g. {@code 6}
     * @param ctx   the call's context
     * @return the sum of the dice
     */
    @Tool(tier = SafetyTier.READ_ONLY)
    public int roll(int count, int sides, ToolContext ctx) {
        if (count < 1 || count > 20 || sides < 2) {
            throw new ToolException("count must be 1 to 20 and sides at least 2; got count " + count + ", sides " + sides + ".");
        }
        int sum = 0;
        for (int i = 0; i < count; i++) {
            sum += 1 + random.nextInt(sides);
        }
        return sum;
    }
}
