@NullMarked
package dev.arbor.studio.templates;

import org.jspecify.annotations.NullMarked;
