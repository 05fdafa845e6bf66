@NullMarked
package dev.arbor.studio.feedback;

import org.jspecify.annotations.NullMarked;
