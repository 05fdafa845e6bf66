@NullMarked
package dev.arbor.inference.api;

import org.jspecify.annotations.NullMarked;
