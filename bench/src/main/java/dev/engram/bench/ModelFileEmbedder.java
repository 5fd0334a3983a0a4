package dev.engram.bench;

import dev.engram.memory.Embedder;
import dev.engram.memory.EmbeddingModel;
import dev.engram.memory.onnx.OnnxEmbedder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The library's own {@link OnnxEmbedder} run on another model file of the same architecture and vocabulary (the fp32
 * bge-small beside the bundled int8 one), for measurements only: no dependency, the file's path is given. The embedder
 * reads its model from the classpath resource {@link EmbeddingModel#modelResource()}; here its classes (the package
 * {@code dev.engram.memory.onnx}) are defined a second time by a class loader that answers that one resource with
 * {@code onnxFile}, and everything else (the {@link Embedder} interface, ONNX Runtime, the tokenizer) comes from the
 * application's loader. Tokenising, windows, pooling and normalisation are therefore the library's, line for line;
 * only the weights differ. The embedder's {@link Embedder#id()} is the bundled model's: keep its vectors apart (an
 * embedding cache directory of their own).
 */
final class ModelFileEmbedder {
    private static final String PACKAGE = OnnxEmbedder.class.getPackageName() + ".";

    private ModelFileEmbedder() {
    }

    /**
     * Opens an embedder of {@code model}'s tokenizer and settings over the weights in {@code onnxFile}.
     *
     * @param queryCache the embedder's query cache entries (0 for none)
     * @param queryPrefix what it puts before queries
     * @throws IllegalArgumentException if the file is missing
     */
    static Embedder open(EmbeddingModel model, Path onnxFile, int queryCache, String queryPrefix) {
        if (!Files.isRegularFile(onnxFile)) {
            throw new IllegalArgumentException("no ONNX model file at " + onnxFile);
        }
        ClassLoader loader = new Loader(OnnxEmbedder.class.getClassLoader(), model.modelResource().substring(1), onnxFile);
        try {
            Class<?> embedder = loader.loadClass(OnnxEmbedder.class.getName());
            Object builder = embedder.getMethod("builder", EmbeddingModel.class).invoke(null, model);
            builder.getClass().getMethod("queryCache", int.class).invoke(builder, queryCache);
            builder.getClass().getMethod("queryPrefix", String.class).invoke(builder, queryPrefix);
            return (Embedder) builder.getClass().getMethod("build").invoke(builder);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load the embedder's classes a second time: " + e, e);
        }
    }

    /** Defines the embedder's package itself (child first) and answers the model resource with the given file. */
    private static final class Loader extends ClassLoader {
        private final String modelResource;
        private final Path onnxFile;

        Loader(ClassLoader parent, String modelResource, Path onnxFile) {
            super("model-file", parent);
            this.modelResource = modelResource;
            this.onnxFile = onnxFile;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(PACKAGE)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        if (in == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = in.readAllBytes();
                        c = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                if (resolve) {
                    resolveClass(c);
                }
                return c;
            }
        }

        @Override
        public URL getResource(String name) {
            if (name.equals(modelResource)) {
                try {
                    return onnxFile.toUri().toURL();
                } catch (MalformedURLException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return super.getResource(name);
        }
    }
}
