@NullMarked
package dev.arbor.inference.steps;

import org.jspecify.annotations.NullMarked;
