@NullMarked
package dev.arbor.studio.templates.versions;

import org.jspecify.annotations.NullMarked;
