package dev.arbor.testing;

import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The bundled models, for real, in worker processes of a model runtime of a test class's own (in a folder of its own,
 * removed after): register it as a static {@code @RegisterExtension} field.
 */
public final class BundledModels implements BeforeAllCallback, AfterAllCallback {
    private Path data;
    private ModelRuntime runtime;

    public ModelRuntime runtime() {
        return runtime;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        data = Files.createTempDirectory("arbor-models-");
        runtime = new ModelRuntime(new Models(false), data, ModelRuntime.Settings.DEFAULT, new SimpleMeterRegistry());
        runtime.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        runtime.close();
        TempFolders.deleteQuietly(data);
    }
}
