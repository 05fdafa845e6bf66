@NullMarked
package dev.arbor.pipelines.control;

import org.jspecify.annotations.NullMarked;
