package dev.engram.tools;

import dev.engram.framework.ToolDefinition;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The source a code-mode program runs with: the driver that speaks the tool channel, and one stub per tool, typed
 * from the tool's JSON schema and documented from its description. A stub call writes one frame on standard output
 * ({@code \u001e}, the run's nonce, then {@code {"call": NAME, "arguments": {...}}} and a newline) and reads its
 * answer as one JSON line on standard input ({@code {"result": ...}} or {@code {"error": "..."}}).
 */
final class CodeStubs {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Set<String> PYTHON_KEYWORDS = Set.of("False", "None", "True", "and", "as", "assert", "async",
            "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
            "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
            "yield", "print", "open", "input", "exec", "eval", "compile", "ToolError", "json", "os", "sys");
    private static final Set<String> JS_RESERVED = Set.of("break", "case", "catch", "class", "const", "continue", "debugger",
            "default", "delete", "do", "else", "export", "extends", "finally", "for", "function", "if", "import", "in",
            "instanceof", "new", "return", "super", "switch", "this", "throw", "try", "typeof", "var", "void", "while",
            "with", "yield", "let", "static", "enum", "await", "implements", "package", "protected", "interface", "private",
            "public", "null", "true", "false", "undefined", "NaN", "Infinity", "eval", "arguments", "require", "process",
            "console", "ToolError", "module", "exports");

    /** The Python driver: reads {@code program.py} and runs it with the stubs in its globals. */
    private static final String PYTHON_DRIVER = """
            import json as _json, os as _os, sys as _sys, traceback as _traceback
            _NONCE = _sys.argv[1]
            _OUT = _os.fdopen(_os.dup(1), "w", encoding="utf-8")
            _IN = _os.fdopen(_os.dup(0), "r", encoding="utf-8")
            _os.dup2(_os.open("/dev/null", _os.O_RDONLY), 0)
            class ToolError(Exception):
                \"\"\"A tool call of the program failed: not allowed, not approved, invalid arguments, or the tool's error.\"\"\"
            class _Unset:
                def __repr__(self):
                    return "UNSET"
            _UNSET = _Unset()
            def _call(_name, _args):
                _args = {k: v for k, v in _args.items() if v is not _UNSET}
                _sys.stdout.flush()
                _sys.stderr.flush()
                _OUT.write("\\x1e" + _NONCE + _json.dumps({"call": _name, "arguments": _args}, default=str) + "\\n")
                _OUT.flush()
                _line = _IN.readline()
                if not _line:
                    raise ToolError("the tool channel is closed")
                _answer = _json.loads(_line)
                if "error" in _answer:
                    raise ToolError(_answer["error"])
                return _answer.get("result")
            _STUBS = {"ToolError": ToolError}
            """;

    private static final String PYTHON_RUN = """
            with open("program.py", encoding="utf-8") as _f:
                _source = _f.read()
            try:
                exec(compile(_source, "program.py", "exec"), dict(_STUBS, __name__="__main__", __builtins__=__builtins__))
            except SystemExit:
                raise
            except BaseException as _e:
                _traceback.print_exception(type(_e), _e, _e.__traceback__.tb_next)
                _sys.exit(1)
            """;

    /** The JavaScript driver, on one line, so that the program's own lines keep their numbers. */
    private static final String JS_DRIVER = "'use strict';const __fs=require('fs');const __NONCE=process.argv[2];"
            // Node writes to a pipe asynchronously: a busy program would pile its output up in memory, never printed.
            + "for(const s of [process.stdout,process.stderr]){if(s._handle&&s._handle.setBlocking)s._handle.setBlocking(true);}"
            + "class ToolError extends Error{constructor(m){super(m);this.name='ToolError';}}"
            + "let __pending='';const __wait=new Int32Array(new SharedArrayBuffer(4));"
            + "function __readLine(){const b=Buffer.alloc(65536);for(;;){const i=__pending.indexOf('\\n');"
            + "if(i>=0){const l=__pending.slice(0,i);__pending=__pending.slice(i+1);return l;}let n;"
            + "try{n=__fs.readSync(0,b,0,b.length,null);}catch(e){if(e.code==='EAGAIN'){Atomics.wait(__wait,0,0,1);continue;}throw e;}"
            + "if(n===0)return null;__pending+=b.toString('latin1',0,n);}}"
            + "async function __call(name,args){if(args!==undefined&&(args===null||typeof args!=='object'||Array.isArray(args)))"
            + "throw new ToolError(name+' takes one object of arguments, e.g. '+name+'({...})');"
            + "__fs.writeSync(1,'\\x1e'+__NONCE+JSON.stringify({call:name,arguments:args===undefined?{}:args})+'\\n');"
            + "const l=__readLine();if(l===null)throw new ToolError('the tool channel is closed');const a=JSON.parse(l);"
            + "if('error' in a)throw new ToolError(a.error);return a.result;}";

    private static final String JS_END = "\n})().catch(e=>{console.error(e&&e.stack?e.stack:String(e));process.exitCode=1;});\n";

    private CodeStubs() {
    }

    /** The Python driver with a stub for each tool. */
    static String pythonDriver(List<ToolDefinition> tools) {
        StringBuilder out = new StringBuilder(PYTHON_DRIVER);
        for (ToolDefinition t : tools) {
            String fn = identifier(t.name(), PYTHON_KEYWORDS);
            List<Param> params = params(t);
            boolean typed = params.stream().allMatch(p -> IDENTIFIER.matcher(p.name).matches() && !PYTHON_KEYWORDS.contains(p.name));
            out.append("def ").append(fn).append('(').append(typed ? pythonParams(params) : "**kwargs").append("):\n");
            out.append("    ").append(quote(pythonDoc(t, params), true)).append('\n');
            if (typed) {
                out.append("    return _call(").append(quote(t.name())).append(", {");
                out.append(String.join(", ", params.stream().map(p -> quote(p.name) + ": " + p.name).toList()));
                out.append("})\n");
            } else {
                out.append("    return _call(").append(quote(t.name())).append(", kwargs)\n");
            }
            out.append("_STUBS[").append(quote(fn)).append("] = ").append(fn).append('\n');
        }
        return out.append(PYTHON_RUN).toString();
    }

    /** The whole JavaScript program: the driver and stubs on its first line, then {@code code} in an async function. */
    static String javascriptProgram(List<ToolDefinition> tools, String code) {
        StringBuilder out = new StringBuilder(JS_DRIVER);
        for (ToolDefinition t : tools) {
            out.append("async function ").append(identifier(t.name(), JS_RESERVED)).append("(args){return __call(")
                    .append(quote(t.name())).append(",args);}");
        }
        return out.append("(async()=>{").append(code).append(JS_END).toString();
    }

    /**
     * What the model is shown of the stubs in {@code language}: one signature a line, with what the tool does (its
     * description's first sentence).
     */
    static String signatures(List<ToolDefinition> tools, CodeLanguage language) {
        List<String> lines = new ArrayList<>();
        for (ToolDefinition t : tools) {
            List<Param> params = params(t);
            String summary = firstSentence(t.description());
            if (language == CodeLanguage.PYTHON) {
                boolean typed = params.stream().allMatch(p -> IDENTIFIER.matcher(p.name).matches() && !PYTHON_KEYWORDS.contains(p.name));
                lines.add("def " + identifier(t.name(), PYTHON_KEYWORDS) + "(" + (typed ? pythonParams(params) : "**kwargs")
                        + ")  # " + summary);
            } else {
                lines.add("async function " + identifier(t.name(), JS_RESERVED) + "({" + String.join(", ", params.stream()
                        .map(p -> quoteIfNeeded(p.name) + (p.required ? "" : "?") + ": " + jsType(p.schema)).toList()) + "})  // "
                        + summary);
            }
        }
        return String.join("\n", lines);
    }

    /** A tool's name as a function name: {@code -} becomes {@code _}; a reserved word or leading digit gets {@code tool_}. */
    static String identifier(String name, Set<String> reserved) {
        String id = name.replace('-', '_');
        return IDENTIFIER.matcher(id).matches() && !reserved.contains(id) ? id : "tool_" + id;
    }

    private record Param(String name, JsonNode schema, boolean required) {
    }

    private static List<Param> params(ToolDefinition t) {
        JsonNode schema = t.parameters();
        Set<String> required = new HashSet<>();
        schema.path("required").forEach(r -> required.add(r.asString("")));
        List<Param> out = new ArrayList<>();
        Map<String, JsonNode> props = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            props.put(e.getKey(), e.getValue());
        }
        // Required ones first: Python's keyword-only parameters may come in any order, and the model reads them first.
        props.forEach((k, v) -> {
            if (required.contains(k)) {
                out.add(new Param(k, v, true));
            }
        });
        props.forEach((k, v) -> {
            if (!required.contains(k)) {
                out.add(new Param(k, v, false));
            }
        });
        return out;
    }

    private static String pythonParams(List<Param> params) {
        if (params.isEmpty()) {
            return "";
        }
        return "*, " + String.join(", ", params.stream()
                .map(p -> p.name + ": " + pythonType(p.schema) + (p.required ? "" : " = _UNSET")).toList());
    }

    private static String pythonDoc(ToolDefinition t, List<Param> params) {
        StringBuilder doc = new StringBuilder(t.description().strip());
        if (!params.isEmpty()) {
            doc.append("\n\nArgs:\n");
            for (Param p : params) {
                doc.append("    ").append(p.name).append(" (").append(pythonType(p.schema)).append(p.required ? "" : ", optional")
                        .append("): ").append(p.schema.path("description").asString("").strip()).append('\n');
            }
        }
        return doc.toString();
    }

    private static String pythonType(JsonNode schema) {
        return switch (type(schema)) {
            case "string" -> "str";
            case "integer" -> "int";
            case "number" -> "float";
            case "boolean" -> "bool";
            case "array" -> "list";
            case "object" -> "dict";
            default -> "object";
        };
    }

    private static String jsType(JsonNode schema) {
        return switch (type(schema)) {
            case "string", "number", "boolean", "object" -> type(schema);
            case "integer" -> "number";
            case "array" -> "any[]";
            default -> "any";
        };
    }

    /** The schema's one type besides {@code null}, or {@code any}. */
    private static String type(JsonNode schema) {
        JsonNode type = schema.path("type");
        if (type.isString()) {
            return type.asString();
        }
        List<String> types = new ArrayList<>();
        type.forEach(t -> {
            if (!t.asString("").equals("null")) {
                types.add(t.asString(""));
            }
        });
        return types.size() == 1 ? types.getFirst() : "any";
    }

    private static String firstSentence(String description) {
        String d = description.strip().replace('\n', ' ');
        int end = d.indexOf(". ");
        String s = end > 0 ? d.substring(0, end + 1) : d;
        return s.length() > 160 ? s.substring(0, 157) + "..." : s;
    }

    private static String quoteIfNeeded(String name) {
        return IDENTIFIER.matcher(name).matches() ? name : quote(name);
    }

    /**
     * A string literal both Python and JavaScript read back as {@code text}: JSON's escapes, and every character outside
     * printable ASCII as {@code \\uXXXX} (a character beyond the BMP as its two surrogates, which JavaScript joins;
     * Python gets {@code \\UXXXXXXXX} for it instead when {@code python}).
     */
    static String quote(String text) {
        return quote(text, false);
    }

    static String quote(String text, boolean python) {
        StringBuilder out = new StringBuilder("\"");
        text.codePoints().forEach(c -> {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c >= 0x20 && c <= 0x7e) {
                        out.append((char) c);
                    } else if (c > 0xffff && python) {
                        out.append(String.format("\\U%08x", c));
                    } else {
                        for (char unit : Character.toChars(c)) {
                            out.append(String.format("\\u%04x", (int) unit));
                        }
                    }
                }
            }
        });
        return out.append('"').toString();
    }
}
