/** Markdown-looking text drawn as its structure (markdownBlocks.ts): React elements and text nodes, never HTML. */
import { useMemo } from 'react';
import { markdownBlocks, type InlinePart } from './markdownBlocks';
import { VisibleText } from './VisibleText';

function Inline({ parts }: { parts: readonly InlinePart[] }) {
  return (
    <>
      {parts.map((part, index) =>
        part.kind === 'code' ? (
          <code key={index}>
            <VisibleText text={part.text} />
          </code>
        ) : part.kind === 'strong' ? (
          <strong key={index}>
            <VisibleText text={part.text} />
          </strong>
        ) : (
          <VisibleText key={index} text={part.text} plainNewlines />
        ),
      )}
    </>
  );
}

export function MarkdownText({ text, testId }: { text: string; testId: string }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <div className="markdown-text" data-testid={testId}>
      {blocks.map((block, index) => {
        switch (block.kind) {
          case 'heading': {
            // Headings inside the inspector sit below its own h4 sections.
            const Tag = block.level <= 1 ? 'h5' : 'h6';
            return (
              <Tag key={index} className={`markdown-heading markdown-heading-${block.level}`}>
                <Inline parts={block.parts} />
              </Tag>
            );
          }
          case 'paragraph':
            return (
              <p key={index}>
                <Inline parts={block.parts} />
              </p>
            );
          case 'list': {
            const List = block.ordered ? 'ol' : 'ul';
            return (
              <List key={index}>
                {block.items.map((item, itemIndex) => (
                  <li key={itemIndex}>
                    <Inline parts={item} />
                  </li>
                ))}
              </List>
            );
          }
          case 'quote':
            return (
              <blockquote key={index}>
                <Inline parts={block.parts} />
              </blockquote>
            );
          case 'code':
            return (
              <pre key={index} className="markdown-code">
                <VisibleText text={block.text} plainNewlines />
              </pre>
            );
          case 'rule':
            return <hr key={index} />;
        }
      })}
    </div>
  );
}
