// @vitest-environment happy-dom
// Which chosen file is the tokenizer.
import { describe, expect, it } from 'vitest';

import { splitModelFiles } from './ModelPicker.jsx';

const file = (name, size) => new File([new Uint8Array(size)], name);

describe('splitModelFiles', () => {
  it('takes one file as the model', () => {
    const m = file('bigram.bin', 10);
    expect(splitModelFiles([m])).toEqual({ model: m, tokenizer: null });
    expect(splitModelFiles([])).toEqual({ model: null, tokenizer: null });
  });

  it('tells the tokenizer by its name, in either order', () => {
    const m = file('stories.bin', 100);
    const t = file('tok512.bin', 1000);
    expect(splitModelFiles([m, t])).toEqual({ model: m, tokenizer: t });
    expect(splitModelFiles([t, m])).toEqual({ model: m, tokenizer: t });
  });

  it('else takes the smaller file as the tokenizer', () => {
    const m = file('a.bin', 5000);
    const t = file('b.bin', 300);
    expect(splitModelFiles([m, t])).toEqual({ model: m, tokenizer: t });
    expect(splitModelFiles([t, m])).toEqual({ model: m, tokenizer: t });
  });
});
