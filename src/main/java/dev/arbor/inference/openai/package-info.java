@NullMarked
package dev.arbor.inference.openai;

import org.jspecify.annotations.NullMarked;
