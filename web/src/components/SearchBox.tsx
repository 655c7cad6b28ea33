// A filter box; "/" anywhere on the page focuses it, Escape clears it.
import { useEffect, useRef } from 'preact/hooks';

interface Props {
  label: string;
  value: string;
  onInput: (v: string) => void;
  id: string;
}

export function SearchBox({ label, value, onInput, id }: Props) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        input.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="search">
      <label for={id}>{label}</label>
      <input
        ref={input}
        id={id}
        type="search"
        value={value}
        autocomplete="off"
        spellcheck={false}
        aria-keyshortcuts="/"
        placeholder="press / to search"
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => e.key === 'Escape' && onInput('')}
      />
    </div>
  );
}
