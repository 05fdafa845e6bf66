@NullMarked
package dev.arbor.pipelines.runs;

import org.jspecify.annotations.NullMarked;
