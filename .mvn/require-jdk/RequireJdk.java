import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Build pre-check, run by the parent pom with Java's single-file source launcher on whatever Java
 * runs Maven: succeeds silently when a JDK of at least the given feature version exists in one of
 * the places maven-toolchains-plugin's discovery looks (plus ~/.m2/toolchains.xml), and otherwise
 * fails with one line saying which JDK to install. The toolchains plugin then does the selection.
 */
public class RequireJdk {
    public static void main(String[] args) throws IOException {
        int required = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        List<Path> candidates = new ArrayList<>();
        candidates.add(Path.of(System.getProperty("java.home")));
        System.getenv().forEach((name, value) -> {
            if (name.equals("JAVA_HOME") || name.equals("JDK_HOME") || name.matches("JAVA\\d+_HOME")) {
                candidates.add(Path.of(value));
            }
        });
        String home = System.getProperty("user.home");
        for (String dir : List.of("/usr/lib/jvm", "/usr/java", "/opt/java", "/opt", home + "/.sdkman/candidates/java",
                home + "/.jdks", home + "/.gradle/jdks", home + "/.asdf/installs/java", "/Library/Java/JavaVirtualMachines",
                home + "/Library/Java/JavaVirtualMachines", "C:/Program Files/Java", "C:/Program Files/Eclipse Adoptium")) {
            children(Path.of(dir), candidates);
        }
        Path toolchains = Path.of(home, ".m2", "toolchains.xml");
        if (Files.isRegularFile(toolchains)) {
            Matcher m = Pattern.compile("<jdkHome>\\s*([^<]+?)\\s*</jdkHome>").matcher(Files.readString(toolchains));
            while (m.find()) {
                candidates.add(Path.of(m.group(1)));
            }
        }
        for (Path candidate : candidates) {
            for (Path jdk : List.of(candidate, candidate.resolve("Contents/Home"))) {
                if (feature(jdk) >= required && (Files.isExecutable(jdk.resolve("bin/javac"))
                        || Files.isExecutable(jdk.resolve("bin/javac.exe")))) {
                    return;
                }
            }
        }
        System.err.println("Engram needs a JDK " + required + " or newer to build and found none (JAVA_HOME, /usr/lib/jvm, "
                + "SDKMAN, ~/.m2/toolchains.xml): install one, e.g. Temurin " + required
                + " from https://adoptium.net or 'apt-get install openjdk-" + required + "-jdk', then run ./mvnw again.");
        System.exit(1);
    }

    private static void children(Path dir, List<Path> out) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            entries.forEach(out::add);
        } catch (IOException | RuntimeException e) {
            // An unreadable directory holds no usable JDK.
        }
    }

    /** The feature version from the JDK's {@code release} file, or 0. */
    private static int feature(Path jdk) {
        Path release = jdk.resolve("release");
        if (!Files.isRegularFile(release)) {
            return 0;
        }
        try {
            Matcher m = Pattern.compile("JAVA_VERSION=\"(1\\.)?(\\d+)").matcher(Files.readString(release));
            return m.find() ? Integer.parseInt(m.group(2)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
