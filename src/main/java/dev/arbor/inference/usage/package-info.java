@NullMarked
package dev.arbor.inference.usage;

import org.jspecify.annotations.NullMarked;
