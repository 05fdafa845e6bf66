@NullMarked
package dev.arbor.inference;

import org.jspecify.annotations.NullMarked;
