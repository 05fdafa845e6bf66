package dev.arbor.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Keeps the test run's temporary files in the build folder and removes them class by class (registered in
 * META-INF/services, so every run has it). The build points the test JVM's {@code java.io.tmpdir} at
 * {@code target/tmp}, which this makes; model workers take the same folder from the server that starts them. When a
 * top-level test class ends, the folders it made ({@link TempFolders#newFolder}) go, and so do ONNX Runtime's
 * extraction folders ({@code onnxruntime-java*}: each worker process unpacks its native library there, and one that is
 * killed leaves it) — the latter only when the temporary directory is this build's own, never a shared {@code /tmp}.
 */
public final class TempFolderCleanup implements TestExecutionListener {
    private static final Path BUILD = Path.of("target").toAbsolutePath();

    private TestPlan plan;

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        plan = testPlan;
        try {
            Files.createDirectories(temporary());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
        boolean topLevelClass =
                identifier.getSource().filter(ClassSource.class::isInstance).isPresent()
                        && plan != null
                        && plan.getParent(identifier)
                                .filter(parent -> parent.getSource()
                                        .filter(ClassSource.class::isInstance)
                                        .isEmpty())
                                .isPresent();
        if (topLevelClass) {
            clean();
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        clean();
    }

    private static void clean() {
        TempFolders.deleteMade();
        Path temporary = temporary();
        if (!temporary.startsWith(BUILD)) {
            return;
        }
        try (Stream<Path> entries = Files.list(temporary)) {
            entries.filter(path -> path.getFileName().toString().startsWith("onnxruntime-java"))
                    .forEach(TempFolders::deleteQuietly);
        } catch (IOException e) {
            // best effort: what is left stays in the build folder
        }
    }

    private static Path temporary() {
        return Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
    }
}
