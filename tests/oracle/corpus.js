// @ts-check
/**
 * The tokenization corpus: strings a tokenizer gets wrong first (Unicode,
 * emoji, CJK, digits, runs of spaces and newlines, code, special tokens),
 * each short enough for the id model (at most 62 tokens with any of the
 * vocabularies).  SPECIALS adds each vocabulary's own special tokens.
 */
export const CORPUS = [
  '',
  ' ',
  '\n',
  'Hello world',
  'The capital of France is',
  'Once upon a time, there was a little girl named Lily.',
  '  two leading spaces, three trailing   ',
  'runs of spaces:     five, tabs\t\tand\n\n\nthree newlines\r\nCRLF',
  'digits 1234567890 3.14159 1,000,000 and the 42nd of 2024',
  'Unicode: café naïve Zürich — “quotes” ‘single’ … ß',
  'emoji 🤖🎉 skin 👍🏽 family 👨‍👩‍👧',
  'CJK: 日本語のテキスト 中文文本 한국어',
  'Arabic مرحبا Hebrew שלום Greek Ωμέγα Cyrillic Привет',
  'def f(x):\n    return x**2  # square\n',
  'if (a && b) { return c[i] >= 0; } // done',
  "contractions: don't we'll I'M you've they'D",
  '<html><body class="x">&amp;</body></html>',
  'a\u00a0non-breaking space and a zero\u200bwidth one',
  'ALL CAPS and MiXeD cAsE and snake_case_names',
  '!!!???... ---=== ___',
];

/** Each vocabulary's special tokens in a text (llama-server parses them: parse_special). */
export const SPECIALS = {
  spm: ['<s>Hello</s> world', 'before <unk> after'],
  'llama-bpe': ['<|begin_of_text|>hi<|eot_id|>', '<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>'],
  'gpt-2': ['one<|endoftext|>two'],
  smollm: ['one<|endoftext|>two'],
  qwen2: ['<|im_start|>user\nHi 你好<|im_end|>\n<|im_start|>assistant\n', '<tool_call>x</tool_call><|endoftext|>'],
};
