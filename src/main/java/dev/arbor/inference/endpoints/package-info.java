@NullMarked
package dev.arbor.inference.endpoints;

import org.jspecify.annotations.NullMarked;
