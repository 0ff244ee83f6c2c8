import { idParts, pathParts } from '../../shared/middleEllipsis';
import '../styles/layout.css';
import { VisibleText, visibleText } from './VisibleText';

/** How many characters of a file name's end always show (the extension and what is before it). */
const fileNameEndChars = 14;

/**
 * A value that may not fit its cell, cut in the middle: the head gives way with "…", the tail (an
 * id's last segment or characters) always shows. A path's directory gives way first, then the
 * start of its file name; the full value is on hover.
 */
export function MiddleEllipsis({
  text,
  kind,
  title,
}: {
  text: string;
  kind: 'path' | 'id';
  /** What the hover says instead of the value alone (the value must be in it). */ title?: string;
}) {
  const { head: directory, tail: name } = kind === 'path' ? pathParts(text) : { head: '', tail: text };
  const { head, tail } = kind === 'path' ? idParts(name, fileNameEndChars) : idParts(name);
  return (
    <span className="middle-ellipsis" title={title ?? visibleText(text)} data-testid="middle-ellipsis">
      {directory !== '' && (
        <span className="middle-ellipsis-head middle-ellipsis-directory">
          <VisibleText text={directory} />
        </span>
      )}
      <span className="middle-ellipsis-head">
        <VisibleText text={head} />
      </span>
      <span className="middle-ellipsis-tail">
        <VisibleText text={tail} />
      </span>
    </span>
  );
}
