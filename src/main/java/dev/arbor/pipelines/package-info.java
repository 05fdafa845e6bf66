@NullMarked
package dev.arbor.pipelines;

import org.jspecify.annotations.NullMarked;
