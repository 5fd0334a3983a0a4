package dev.engram.framework.processor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.engram.framework.ApprovalMode;
import dev.engram.framework.DynamicTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolCall;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolExecutor;
import dev.engram.framework.ToolRegistry;
import dev.engram.framework.ToolResult;
import dev.engram.framework.ToolStatus;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

class ToolProcessorTest {
    @TempDir
    Path work;

    private static final String KITCHEN = """
            package demo;

            import com.fasterxml.jackson.annotation.JsonProperty;
            import com.fasterxml.jackson.annotation.JsonPropertyDescription;
            import dev.engram.framework.SafetyTier;
            import dev.engram.framework.Tool;
            import dev.engram.framework.ToolContext;
            import dev.engram.framework.Truncation;
            import java.math.BigDecimal;
            import java.util.List;
            import java.util.Set;

            public class Kitchen {
                public enum Size { SMALL, @JsonProperty("large") LARGE }

                public record Dish(@JsonPropertyDescription("Name of the dish.") String dishName, int portions) {}

                /**
                 * Orders dishes from the kitchen and returns the ticket.
                 * Use it once per table.
                 *
                 * @param table the table number, e.g. {@code 12}
                 * @param dishes what to cook
                 * @param size portion size
                 * @param tip tip in euros
                 * @param urgent whether the order jumps the queue
                 * @param tags free labels
                 * @param ctx the call context
                 * @return the ticket
                 */
                @Tool(tier = SafetyTier.SIDE_EFFECTING, timeoutMillis = 1234, truncation = Truncation.KEEP_TAIL)
                public String order(int table, List<Dish> dishes, Size size, double tip, boolean urgent, Set<String> tags,
                        ToolContext ctx) {
                    return "table " + table + " for " + ctx.userId().orElse("?") + ": " + dishes + " " + size + " " + tip
                            + " " + urgent + " " + tags;
                }

                /** Counts the letters in a word. */
                @Tool(name = "count-letters", tier = SafetyTier.READ_ONLY)
                static long count(String word, char[] ignored, BigDecimal scale, Character marker) {
                    return word.length();
                }

                /** Rings the bell. */
                @Tool(tier = SafetyTier.READ_ONLY)
                void ring() {
                }

                @Tool(description = "Returns the dish it was given.", tier = SafetyTier.READ_ONLY)
                Dish echo(Dish dish) {
                    return dish;
                }

                public static class Inner {
                    /** Says hi. */
                    @Tool(tier = SafetyTier.READ_ONLY)
                    String hi() {
                        return "hi";
                    }
                }
            }
            """;

    @SuppressWarnings("unchecked")
    private static List<DynamicTool> toolsOf(ClassLoader loader, String generated, String target) throws Exception {
        Class<?> targetClass = loader.loadClass(target);
        Object instance = targetClass.getDeclaredConstructor().newInstance();
        return (List<DynamicTool>) loader.loadClass(generated).getMethod("of", targetClass).invoke(null, instance);
    }

    @Test
    void annotatedMethodsBecomeToolsWithSchemasFromTheirSignatures() throws Exception {
        Compilation c = Compilation.compile(work, Map.of("demo/Kitchen.java", KITCHEN));
        assertThat(c.errors()).isEmpty();
        assertThat(c.success()).isTrue();
        List<DynamicTool> tools = toolsOf(c.classLoader(), "demo.Kitchen_Tools", "demo.Kitchen");
        assertThat(tools).extracting(DynamicTool::name).containsExactly("order", "count-letters", "ring", "echo");

        DynamicTool order = tools.get(0);
        assertThat(order.description()).isEqualTo("Orders dishes from the kitchen and returns the ticket. Use it once per table.");
        assertThat(order.safetyTier()).isEqualTo(SafetyTier.SIDE_EFFECTING);
        assertThat(order.timeout()).isEqualTo(Duration.ofMillis(1234));
        assertThat(order.truncation()).isEqualTo(dev.engram.framework.Truncation.KEEP_TAIL);
        JsonNode s = order.parametersSchema();
        assertThat(s.path("properties").propertyNames()).containsExactly("table", "dishes", "size", "tip", "urgent", "tags");
        assertThat(s.path("required")).extracting(JsonNode::asString).containsExactly("table", "dishes", "size", "tip", "urgent", "tags");
        assertThat(s.path("additionalProperties").asBoolean(true)).isFalse();
        assertThat(s.at("/properties/table/type").asString()).isEqualTo("integer");
        assertThat(s.at("/properties/table/description").asString()).isEqualTo("the table number, e.g. 12");
        assertThat(s.at("/properties/tip/type").asString()).isEqualTo("number");
        assertThat(s.at("/properties/urgent/type").asString()).isEqualTo("boolean");
        assertThat(s.at("/properties/size/enum")).extracting(JsonNode::asString).containsExactly("SMALL", "large");
        assertThat(s.at("/properties/tags/type").asString()).isEqualTo("array");
        assertThat(s.at("/properties/tags/uniqueItems").asBoolean()).isTrue();
        JsonNode dish = s.at("/properties/dishes/items");
        assertThat(dish.path("type").asString()).isEqualTo("object");
        assertThat(dish.path("properties").propertyNames()).containsExactly("dish_name", "portions");
        assertThat(dish.at("/properties/dish_name/description").asString()).isEqualTo("Name of the dish.");
        assertThat(dish.path("additionalProperties").asBoolean(true)).isFalse();

        JsonNode count = tools.get(1).parametersSchema();
        assertThat(count.at("/properties/ignored/type").asString()).isEqualTo("array");
        assertThat(count.at("/properties/ignored/items/maxLength").asInt()).isEqualTo(1);
        assertThat(count.at("/properties/scale/type").asString()).isEqualTo("number");
        assertThat(count.at("/properties/marker/type").asString()).isEqualTo("string");
        assertThat(tools.get(2).parametersSchema().path("properties").isEmpty()).isTrue();
    }

    @Test
    @SuppressWarnings({"unchecked", "rawtypes"})
    void aToolMethodsParameterHasTheSchemaATypedToolsInputOfThatTypeHas() throws Exception {
        Compilation c = Compilation.compile(work, Map.of("demo/Kitchen.java", KITCHEN));
        List<DynamicTool> tools = toolsOf(c.classLoader(), "demo.Kitchen_Tools", "demo.Kitchen");
        JsonNode viaMethod = tools.get(3).parametersSchema().at("/properties/dish");
        Class dish = c.classLoader().loadClass("demo.Kitchen$Dish");
        JsonNode viaTypedTool = DynamicTool.from(dev.engram.framework.AiTool.of("t", "A test tool.", dish,
                SafetyTier.READ_ONLY, (in, ctx) -> "")).parametersSchema();
        assertThat(viaMethod).isEqualTo(viaTypedTool);
    }

    @Test
    void generatedToolsRunThroughThePipeline() throws Exception {
        Compilation c = Compilation.compile(work, Map.of("demo/Kitchen.java", KITCHEN));
        ToolRegistry registry = ToolRegistry.create().registerAll(toolsOf(c.classLoader(), "demo.Kitchen_Tools", "demo.Kitchen"));
        ToolExecutor ex = ToolExecutor.builder(registry).approvalMode(ApprovalMode.YOLO).build();
        ToolContext ctx = ToolContext.builder().userId("ana").build();

        ToolResult ordered = ex.execute(ToolCall.of("order", """
                {"table": 7, "dishes": [{"dish_name": "soup", "portions": 2}], "size": "large", "tip": 1.5,
                 "urgent": true, "tags": ["window"]}"""), ctx);
        assertThat(ordered.status()).isEqualTo(ToolStatus.SUCCESS);
        assertThat(ordered.content()).isEqualTo("table 7 for ana: [Dish[dishName=soup, portions=2]] LARGE 1.5 true [window]");

        assertThat(ex.execute(ToolCall.of("count-letters", "{\"word\":\"hello\",\"ignored\":[],\"scale\":1,\"marker\":\"x\"}"), ctx)
                .content()).isEqualTo("5");
        assertThat(ex.execute(ToolCall.of("ring", "{}"), ctx).content()).isEqualTo("OK");
        assertThat(ex.execute(ToolCall.of("echo", "{\"dish\":{\"dish_name\":\"tea\",\"portions\":1}}"), ctx).content())
                .isEqualTo("{\"dish_name\":\"tea\",\"portions\":1}");

        ToolResult invalid = ex.execute(ToolCall.of("order", "{\"table\": \"seven\"}"), ctx);
        assertThat(invalid.status()).isEqualTo(ToolStatus.INVALID_ARGUMENTS);
        assertThat(invalid.content()).contains("field 'table': expected integer, got string \"seven\"")
                .contains("missing required field 'dishes'");
    }

    @Test
    void staticNestedTypesGetTheirOwnGeneratedClass() throws Exception {
        Compilation c = Compilation.compile(work, Map.of("demo/Kitchen.java", KITCHEN));
        List<DynamicTool> tools = toolsOf(c.classLoader(), "demo.Kitchen_Inner_Tools", "demo.Kitchen$Inner");
        assertThat(tools).extracting(DynamicTool::name).containsExactly("hi");
        assertThat(c.generatedSource("demo/Kitchen_Inner_Tools.java")).contains("@javax.annotation.processing.Generated");
    }

    @Test
    void registryFindsTheGeneratedClass() throws Exception {
        Compilation c = Compilation.compile(work, Map.of("demo/Kitchen.java", KITCHEN));
        Object kitchen = c.classLoader().loadClass("demo.Kitchen").getDeclaredConstructor().newInstance();
        ToolRegistry registry = ToolRegistry.create().registerAnnotated(kitchen);
        assertThat(registry.names()).containsExactly("count-letters", "echo", "order", "ring");
    }

    private static String source(String method) {
        return """
                package demo;

                import dev.engram.framework.Tool;
                import java.util.List;
                import java.util.Map;

                public class Bad {
                    public record Node(String name, List<Node> children) {}
                    public record Box<T>(T value) {}

                %s
                }
                """.formatted(method);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            generic method        | /** Doc. */ @Tool <T> String pick(T value) { return ""; }                | @Tool method Bad.pick(value) is generic; a tool's parameter types must be fixed, remove the type parameters
            varargs               | /** Doc. */ @Tool String join(String... parts) { return ""; }           | @Tool method Bad.join(parts): varargs parameter 'parts' is not supported; take a List instead
            map parameter         | /** Doc. */ @Tool String look(Map<String, String> attrs) { return ""; } | @Tool method Bad.look(attrs): parameter 'attrs' has type java.util.Map<java.lang.String,java.lang.String>, which @Tool cannot map to JSON Schema; use String, boolean, a number, an enum, a List, a Set, an array or a record
            object parameter      | /** Doc. */ @Tool String any(Object thing) { return ""; }               | @Tool method Bad.any(thing): parameter 'thing' has type java.lang.Object, which @Tool cannot map to JSON Schema; use String, boolean, a number, an enum, a List, a Set, an array or a record
            raw list              | /** Doc. */ @Tool String raw(List items) { return ""; }                 | @Tool method Bad.raw(items): parameter 'items' has type java.util.List, which @Tool cannot map to JSON Schema (a raw collection; give its element type); use String, boolean, a number, an enum, a List, a Set, an array or a record
            recursive record      | /** Doc. */ @Tool String tree(Node root) { return ""; }                 | @Tool method Bad.tree(root): parameter 'root' has type demo.Bad.Node, which @Tool cannot map to JSON Schema (record demo.Bad.Node contains itself; tool schemas must not be recursive); use String, boolean, a number, an enum, a List, a Set, an array or a record
            generic record        | /** Doc. */ @Tool String box(Box<String> b) { return ""; }              | @Tool method Bad.box(b): parameter 'b' has type demo.Bad.Box<java.lang.String>, which @Tool cannot map to JSON Schema (generic record demo.Bad.Box); use String, boolean, a number, an enum, a List, a Set, an array or a record
            private method        | /** Doc. */ @Tool private String hidden() { return ""; }                | @Tool method Bad.hidden() must not be private: the generated class calls it
            no description        | @Tool String silent() { return ""; }                                     | @Tool method Bad.silent() has no description: write a javadoc comment for it or set @Tool(description = ...)
            invalid name          | /** Doc. */ @Tool(name = "two words") String n() { return ""; }         | @Tool method Bad.n(): tool name 'two words' is invalid; use 1 to 64 characters from a-z, A-Z, 0-9, '_' and '-'
            bad timeout           | /** Doc. */ @Tool(timeoutMillis = 0) String t() { return ""; }          | @Tool method Bad.t(): timeoutMillis must be positive, got 0
            duplicate tool names  | /** A. */ @Tool(name = "x") String a() { return ""; } /** B. */ @Tool(name = "x") String b() { return ""; } | @Tool method Bad.b(): another @Tool method of Bad is already named 'x'; set @Tool(name = ...)
            """)
    void unsupportedSignaturesAreCompileErrorsNamingMethodAndParameter(String label, String method, String expected)
            throws IOException {
        Compilation c = Compilation.compile(work, Map.of("demo/Bad.java", source(method)));
        assertThat(c.success()).as(label).isFalse();
        assertThat(c.errors()).as(label).containsExactly(expected);
    }

    @Test
    void toolsInANonStaticInnerClassAreRejected() throws IOException {
        Compilation c = Compilation.compile(work, Map.of("demo/Outer.java", """
                package demo;
                public class Outer {
                    public class Inner {
                        /** Doc. */ @dev.engram.framework.Tool String x() { return ""; }
                    }
                }
                """));
        assertThat(c.errors()).containsExactly("@Tool methods must be declared in a top-level or static nested type; make Inner static");
    }

    @Test
    void snakeCaseFollowsJackson() {
        assertThat(ToolProcessor.snakeCase("dishName")).isEqualTo("dish_name");
        assertThat(ToolProcessor.snakeCase("URLValue")).isEqualTo("urlvalue");
        assertThat(ToolProcessor.snakeCase("a")).isEqualTo("a");
        assertThat(ToolProcessor.snakeCase("_x")).isEqualTo("x");
    }
}
