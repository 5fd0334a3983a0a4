package dev.engram.agents;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The reply of a streaming send_message call, decoded from argument fragments cut anywhere. */
class ReplyDecoderTest {
    private static String decode(String json, int chunk) {
        ReplyDecoder decoder = new ReplyDecoder("message");
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < json.length(); i += chunk) {
            out.append(decoder.feed(json.substring(i, Math.min(json.length(), i + chunk))));
        }
        return out.toString();
    }

    private static void decodesAtEveryCut(String json, String expected) {
        for (int chunk = 1; chunk <= json.length(); chunk++) {
            assertThat(decode(json, chunk)).as("in pieces of %d", chunk).isEqualTo(expected);
        }
    }

    @Test
    void escapesAndSurrogatePairsSurviveAnyCut() {
        decodesAtEveryCut("{\"message\": \"Ol\\u00e1 \\\"you\\\"\\n\\ud83d\\ude00 \\\\ done\\t/\\/\"}", "Olá \"you\"\n😀 \\ done\t//");
        decodesAtEveryCut("{\"message\":\"raw 😀 é\"}", "raw 😀 é");
    }

    @Test
    void onlyTheTopLevelMessageIsTheReply() {
        decodesAtEveryCut("{\"target_agent_id\": null, \"meta\": {\"message\": \"no\"}, \"list\": [\"message\", 1],"
                + " \"message\": \"yes\", \"request_heartbeat\": true}", "yes");
        decodesAtEveryCut("{\"note\": \"message\", \"message\": \"ok\"}", "ok");
        decodesAtEveryCut("{\"messages\": \"no\"}", "");
    }

    @Test
    void malformedArgumentsStopTheDecodingQuietly() {
        assertThat(decode("{\"message\": \"bad \\uZZZZ rest\"}", 3)).isEqualTo("bad ");
        assertThat(decode("{\"message\": 42}", 2)).isEmpty();
        assertThat(decode("not json", 1)).isEmpty();
    }
}
