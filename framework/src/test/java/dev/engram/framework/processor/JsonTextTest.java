package dev.engram.framework.processor;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonTextTest {

    @Test
    void jsonKeepsNonAsciiAndJavaEscapesItBothEscapeQuotesBackslashesAndControls() {
        String text = "say \"hé\"\\\n\t\r\u0001";
        assertThat(JsonText.quote(text)).isEqualTo("\"say \\\"hé\\\"\\\\\\n\\t\\r\\u0001\"");
        assertThat(JsonText.javaString(text)).isEqualTo("\"say \\\"h\\u00e9\\\"\\\\\\n\\t\\r\\u0001\"");
        assertThat(JsonText.javaString("~\u007f")).isEqualTo("\"~\\u007f\"");
        assertThat(JsonText.quote("~\u007f")).isEqualTo("\"~\u007f\"");
    }
}
