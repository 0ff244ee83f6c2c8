/**
 * The styles of the views loaded with their code (lazyViews.tsx), taken into the page's one
 * stylesheet ahead of the app's own (styles.css), where they were before the views were split off:
 * the order of stylesheets is the cascade's, and the build would otherwise put them last. Each
 * view still imports its own; these imports only fix where they go.
 */
import '../styles/calls.css';
import '../styles/diff.css';
import '../styles/event-content.css';
import '../styles/timeline-noise.css';
import '../styles/growth.css';
import '../styles/span-tree.css';
import '../styles/compare.css';
