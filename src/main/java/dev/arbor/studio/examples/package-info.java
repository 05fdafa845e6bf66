@NullMarked
package dev.arbor.studio.examples;

import org.jspecify.annotations.NullMarked;
