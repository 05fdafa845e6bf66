@NullMarked
package dev.arbor.pipelines.runs.store;

import org.jspecify.annotations.NullMarked;
