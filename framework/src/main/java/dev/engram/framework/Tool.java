package dev.engram.framework;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method as a tool. At compile time the {@code @Tool} annotation processor (shipped in
 * engram-framework) generates, for a class {@code Foo} with {@code @Tool} methods, a class
 * {@code Foo_Tools} with {@code static List<DynamicTool> of(Foo target)}. Register the tools with
 * {@link ToolRegistry#registerAnnotated(Object)}.
 *
 * <ul>
 *   <li>The tool name is the method name (or {@link #name()}).</li>
 *   <li>The description is the method's javadoc (or {@link #description()}); each {@code @param}
 *       tag describes its parameter. A tool with neither is a compile error.</li>
 *   <li>Parameters map to JSON Schema: {@code String} and {@code char} to string, {@code boolean} to
 *       boolean, integral types to integer, floating types to number, enums to a string enum, lists,
 *       sets and arrays to array, records to object. All are required. A parameter of type
 *       {@link ToolContext} is not part of the schema: it receives the call's context.</li>
 *   <li>A generic method, a varargs method, a private method or a parameter type that cannot be
 *       mapped is a compile error naming the method and the parameter.</li>
 *   <li>The return value is given to the model as text if it is a {@code CharSequence}, as JSON
 *       otherwise, and as {@code OK} for {@code void}.</li>
 * </ul>
 *
 * <p>Since JDK 23 javac runs annotation processors only when asked: put engram-framework on the
 * compiler's {@code annotationProcessorPaths} (Maven) or pass {@code -proc:full}.
 *
 * <pre>{@code
 * class Weather {
 *     /**
 *      * Returns the forecast for a city.
 *      * @param city the city name, e.g. "Lisbon"
 *      *\/
 *     @Tool(tier = SafetyTier.READ_ONLY)
 *     String forecast(String city) { ... }
 * }
 * registry.registerAnnotated(new Weather());
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface Tool {
    /** The tool name; defaults to the method name. */
    String name() default "";

    /** The description; defaults to the method's javadoc. */
    String description() default "";

    /** The safety tier; defaults to {@link SafetyTier#SIDE_EFFECTING}. */
    SafetyTier tier() default SafetyTier.SIDE_EFFECTING;

    /** The timeout in milliseconds; defaults to 30 seconds. */
    long timeoutMillis() default 30_000;

    /** Which end of an over-long output to keep. */
    Truncation truncation() default Truncation.KEEP_HEAD;
}
