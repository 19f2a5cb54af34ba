import { useState } from 'react';

/** Up to two letters for `name`: the first letters of its first two words (Countdown Ponsonby: CP). */
function initialsOf(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return (
    words.length === 1
      ? words[0]!.slice(0, 2)
      : words
          .slice(0, 2)
          .map((word) => word[0])
          .join('')
  ).toUpperCase();
}

/**
 * A bank's or merchant's logo, or its initials when there is no image or the image fails to load:
 * the app never shows a broken image. Decorative (the name is written beside it), so no alt text.
 */
export function Logo({ src, name }: { src?: string | null; name: string }) {
  const [failed, setFailed] = useState<string>(); // the source that failed, so a new one is tried
  if (!src || failed === src)
    return (
      <span className="logo initials" aria-hidden="true">
        {initialsOf(name)}
      </span>
    );
  return <img className="logo" src={src} alt="" width={32} height={32} onError={() => setFailed(src)} />;
}
