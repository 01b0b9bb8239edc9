import { DomUtils, parseDocument } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import {
  type BrandCheckContent,
  type BrandCheckFinding,
  checkBrand,
  checkPassed,
  type CheckableBrand,
  compileBrandChecker,
} from './brand-check.js';
import type { BrandRule } from './brand-context.js';

type RuleInput = {
  kind: BrandRule['kind'];
  value: unknown;
  message?: string;
  severity?: 'error' | 'warning';
};

function brandWith(...rules: RuleInput[]): CheckableBrand {
  return {
    colors: {
      primary: '#1a73e8',
      secondary: '#fbbc04',
      accent: null,
      background: '#ffffff',
      text: '#202124',
      palette: [{ name: 'Leaf', hex: '#34a853', role: null }],
    },
    fonts: {
      heading: {
        family: 'Playfair Display',
        weights: [700],
        fallback: ['Georgia'],
        source: 'google',
        url: null,
      },
      body: {
        family: 'Inter',
        weights: [400],
        fallback: ['Helvetica Neue', 'Arial'],
        source: 'google',
        url: null,
      },
    },
    rules: rules.map(
      (rule, index) => ({ id: `rl_${index + 1}`, message: '', severity: 'error', ...rule }) as BrandRule,
    ),
  };
}

/** The text a reader sees in a slice of HTML (entities decoded, tags dropped, a line break for <br>). */
function visible(html: string): string {
  return DomUtils.textContent(parseDocument(html.replace(/<br\s*\/?>/giu, '\n')));
}

/** Checks, and asserts that every finding's offsets point at its excerpt in the field as sent. */
function check(brand: CheckableBrand, content: BrandCheckContent): BrandCheckFinding[] {
  const findings = checkBrand(brand, content);
  for (const finding of findings) {
    if (finding.field === null) {
      expect(finding).toMatchObject({ excerpt: '', start: null, end: null });
      continue;
    }
    const source = content[finding.field] ?? '';
    const slice = source.slice(finding.start ?? -1, finding.end ?? -1);
    expect(finding.field === 'html' ? visible(slice) : slice).toBe(finding.excerpt);
  }
  return findings;
}

const excerpts = (findings: BrandCheckFinding[]) => findings.map((finding) => finding.excerpt);

describe('banned_term', () => {
  const brand = brandWith({ kind: 'banned_term', value: 'hurry' });

  it('finds the word whatever its case, with its rule, field, severity and default message', () => {
    const content = { text: 'Hurry! Offer ends soon, HURRY up.' };
    const findings = check(brand, content);
    expect(findings).toEqual([
      {
        rule_id: 'rl_1',
        kind: 'banned_term',
        severity: 'error',
        message: `Don't say "hurry".`,
        excerpt: 'Hurry',
        field: 'text',
        start: 0,
        end: 5,
      },
      expect.objectContaining({ excerpt: 'HURRY', start: 24, end: 29 }),
    ]);
    expect(checkPassed(findings)).toBe(false);
  });

  it('keeps a text where the word only appears inside another word', () => {
    expect(check(brand, { text: 'No hurrying, no flurry, take your time.' })).toEqual([]);
    const ass = brandWith({ kind: 'banned_term', value: 'ass' });
    expect(check(ass, { text: 'A first-class assistant for mass mailing.' })).toEqual([]);
    expect(excerpts(check(ass, { text: 'What an ass.' }))).toEqual(['ass']);
  });

  it('matches a phrase across any run of whitespace but not across other characters', () => {
    const phrase = brandWith({ kind: 'banned_term', value: 'act  now' });
    expect(excerpts(check(phrase, { text: 'Please act\n   now, or ACT NOW.' }))).toEqual([
      'act\n   now',
      'ACT NOW',
    ]);
    expect(check(phrase, { text: 'act-now, actnow, act, now' })).toEqual([]);
  });

  it('matches terms with inner punctuation as written', () => {
    const brand = brandWith(
      { kind: 'banned_term', value: 'world-class' },
      { kind: 'banned_term', value: "don't" },
    );
    expect(excerpts(check(brand, { text: "World-class service. Don't wait." }))).toEqual([
      'World-class',
      "Don't",
    ]);
    expect(check(brand, { text: 'world class service, do not wait' })).toEqual([]);
  });

  it('compares Unicode text case-insensitively after NFC normalization, with offsets into the text as sent', () => {
    const brand = brandWith({ kind: 'banned_term', value: 'ÉTÉ' });
    const decomposed = 'Cet e\u0301te\u0301 seulement';
    const findings = check(brand, { subject: 'Soldes été', text: decomposed });
    expect(findings.map(({ field, excerpt }) => [field, excerpt])).toEqual([
      ['subject', 'été'],
      ['text', 'e\u0301te\u0301'],
    ]);
    expect(check(brand, { text: 'étés et étang' })).toEqual([]);
  });

  it('checks every field, subject then text then html', () => {
    const findings = check(brand, { html: '<p>hurry</p>', text: 'hurry', subject: 'hurry' });
    expect(findings.map((finding) => finding.field)).toEqual(['subject', 'text', 'html']);
  });

  it('uses the rule message when one is set, and a warning does not fail the check', () => {
    const warned = brandWith({
      kind: 'banned_term',
      value: 'hurry',
      message: 'We never rush readers.',
      severity: 'warning',
    });
    const findings = check(warned, { text: 'hurry' });
    expect(findings).toEqual([
      expect.objectContaining({ message: 'We never rush readers.', severity: 'warning' }),
    ]);
    expect(checkPassed(findings)).toBe(true);
  });
});

describe('preferred_term', () => {
  const brand = brandWith({
    kind: 'preferred_term',
    value: { use: 'sign up', instead_of: ['register', 'enroll now'] },
  });

  it('finds each term to avoid and says what to use instead', () => {
    const findings = check(brand, { text: 'Register today or Enroll  now.' });
    expect(findings.map(({ excerpt, message }) => [excerpt, message])).toEqual([
      ['Register', 'Say "sign up" instead of "Register".'],
      ['Enroll  now', 'Say "sign up" instead of "Enroll  now".'],
    ]);
  });

  it('keeps a text that uses the preferred term or only a longer word', () => {
    expect(
      check(brand, { text: 'Sign up today: registered users get more, enrollment is open now.' }),
    ).toEqual([]);
  });
});

describe('required_phrase', () => {
  const brand = brandWith({ kind: 'required_phrase', value: 'Acme Inc' });

  it('reports a missing phrase once, with no field and no place', () => {
    const findings = check(brand, {
      subject: 'Hello',
      text: 'Acme Incorporated says hi',
      html: '<p>Acme</p><p>Inc</p>',
    });
    expect(findings).toEqual([
      {
        rule_id: 'rl_1',
        kind: 'required_phrase',
        severity: 'error',
        message: 'Include "Acme Inc".',
        excerpt: '',
        field: null,
        start: null,
        end: null,
      },
    ]);
  });

  it('keeps content that has the phrase in any field, in any case, or in HTML text split by inline tags', () => {
    expect(check(brand, { subject: 'From ACME inc' })).toEqual([]);
    expect(check(brand, { text: 'x', html: '<p>© <b>Acme</b>\n Inc</p>' })).toEqual([]);
    expect(check(brand, { html: '<img alt="Acme Inc logo" src="x.png">' })).toEqual([]);
  });
});

describe('max_exclamations', () => {
  const brand = brandWith({ kind: 'max_exclamations', value: 2 });

  it('keeps content with as many marks as allowed', () => {
    expect(check(brand, { subject: 'Hi!', text: 'Welcome!' })).toEqual([]);
  });

  it('finds every mark past the limit, counting over subject, text and html in that order', () => {
    const content = { subject: 'Hi!', text: 'Welcome! Really！', html: '<p>Wow&excl; Yes&#33;!</p>' };
    const findings = check(brand, content);
    expect(findings.map(({ field, excerpt, start, end }) => [field, excerpt, start, end])).toEqual([
      ['text', '！', 15, 16],
      ['html', '!', 6, 12],
      ['html', '!', 16, 21],
      ['html', '!', 21, 22],
    ]);
    expect(findings[0]?.message).toBe('At most 2 exclamation marks.');
  });

  it('says "mark" for a limit of one', () => {
    const findings = check(brandWith({ kind: 'max_exclamations', value: 1 }), { text: 'Hi! Hello!' });
    expect(findings.map((finding) => finding.message)).toEqual(['At most 1 exclamation mark.']);
  });

  it('does not count marks in tags, comments, scripts or styles, but does in alt and title', () => {
    const zero = brandWith({ kind: 'max_exclamations', value: 0 });
    const html =
      '<!-- wow! --><script>alert("!")</script><style>a::after{content:"!"}</style><a href="/x?a=!">go</a>';
    expect(check(zero, { html })).toEqual([]);
    expect(excerpts(check(zero, { html: '<img alt="New!"><p title="Hey!">x</p>' }))).toEqual(['!', '!']);
  });
});

describe('max_emoji', () => {
  const one = brandWith({ kind: 'max_emoji', value: 1 });
  const none = brandWith({ kind: 'max_emoji', value: 0 });

  it('counts a skin-toned emoji, a ZWJ sequence, a flag and a keycap as one emoji each', () => {
    for (const emoji of ['👍🏽', '👨‍👩‍👧', '🧑🏿‍💻', '🇫🇷', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '1️⃣', '❤️']) {
      expect(check(one, { text: `Nice ${emoji} work` })).toEqual([]);
      expect(excerpts(check(none, { text: `Nice ${emoji} work` }))).toEqual([emoji]);
    }
  });

  it('finds every emoji past the limit, each at its place', () => {
    const text = 'Go 🚀 team 👍🏽👨‍👩‍👧 now 🇫🇷';
    const findings = check(one, { text });
    expect(excerpts(findings)).toEqual(['👍🏽', '👨‍👩‍👧', '🇫🇷']);
    expect(findings[0]?.message).toBe('At most 1 emoji.');
  });

  it('does not count digits, #, *, or symbols in text presentation such as © and ™', () => {
    expect(check(none, { text: 'Call #1 * 24/7 © Acme™ ☺ 2026' })).toEqual([]);
  });

  it('counts emoji written as HTML entities and in alt text, not in tags or comments', () => {
    const html = '<p data-x="😀">Hi &#x1F600; <!-- 🎉 --></p><img alt="🎉">';
    const findings = check(none, { html });
    expect(findings.map(({ excerpt, start, end }) => [excerpt, html.slice(start ?? 0, end ?? 0)])).toEqual([
      ['😀', '&#x1F600;'],
      ['🎉', '🎉'],
    ]);
  });

  it('counts over all fields together', () => {
    expect(excerpts(check(one, { subject: '🎉 Sale', html: '<p>Now 🎉</p>' }))).toEqual(['🎉']);
  });
});

describe('HTML text', () => {
  const brand = brandWith({ kind: 'banned_term', value: 'café' }, { kind: 'banned_term', value: 'act now' });

  it('decodes entities, and the offsets span the source of what was matched', () => {
    const html = '<p>Our caf&eacute; &amp; CAF&#xC9; menu: act&nbsp;now</p>';
    const findings = check(brand, { html });
    expect(findings.map(({ excerpt, start, end }) => [excerpt, html.slice(start ?? 0, end ?? 0)])).toEqual([
      ['café', 'caf&eacute;'],
      ['CAFÉ', 'CAF&#xC9;'],
      ['act\u00a0now', 'act&nbsp;now'],
    ]);
  });

  it('reads words across inline tags but not across blocks', () => {
    const findings = check(brand, {
      html: '<p><b>ca</b>f&eacute;</p><p>act</p><p>now</p><div>act<br>now</div>',
    });
    expect(excerpts(findings)).toEqual(['café', 'act\nnow']);
  });

  it('ignores tag names, attribute values other than alt and title, comments, scripts, styles and the title', () => {
    const html =
      '<head><title>Café news</title></head>' +
      '<cafe class="café" data-note="act now"><!-- café --><script>var café = "act now";</script>' +
      '<style>.café{}</style><template>café</template>ok</cafe>';
    expect(check(brand, { html })).toEqual([]);
  });

  it('checks alt and title values, entities decoded, with their offsets', () => {
    const html = '<img src="a.png" alt="Le caf&eacute;"><a title=\'Act now\' href="#">x</a>';
    const findings = check(brand, { html });
    expect(findings.map(({ excerpt, start, end }) => [excerpt, html.slice(start ?? 0, end ?? 0)])).toEqual([
      ['café', 'caf&eacute;'],
      ['Act now', 'Act now'],
    ]);
  });

  it('reads the text field as plain text, not HTML', () => {
    const findings = check(brand, { text: 'caf&eacute; <b>act now</b>' });
    expect(excerpts(findings)).toEqual(['act now']);
  });
});

describe('palette_only', () => {
  const brand = brandWith({ kind: 'palette_only', value: null });

  it('keeps HTML whose colors are all brand colors, written in any notation', () => {
    const html =
      '<p style="color: #1A73E8; background-color: rgb(255 255 255); border-color: hsl(0, 0%, 100%)">a</p>' +
      '<p style="color: #202124; outline: 2px solid #34a853; background: white">b</p>' +
      '<table bgcolor="#FBBC04"><tr><td><font color="#fff">c</font></td></tr></table>';
    expect(check(brand, { html })).toEqual([]);
  });

  it('treats a color within ΔE2000 2 of a brand color as that color', () => {
    expect(check(brand, { html: '<p style="color:#1b73e8">a</p>' })).toEqual([]);
    expect(excerpts(check(brand, { html: '<p style="color:#3a73e8">a</p>' }))).toEqual(['#3a73e8']);
  });

  it('finds colors inside shorthands, with the value as written and its offsets', () => {
    const html =
      '<div style="border: 1px solid #ff0000; background: url(x.png) no-repeat RED; ' +
      'box-shadow: 0 0 4px rgba(0, 128, 0, 0.5); outline: thin dotted hsl(240 100% 50%); ' +
      'text-decoration: underline wavy orange">x</div>';
    const findings = check(brand, { html });
    expect(
      findings.map(({ excerpt, message, start, end }) => [
        excerpt,
        message,
        html.slice(start ?? 0, end ?? 0),
      ]),
    ).toEqual([
      ['#ff0000', '#ff0000 is not a brand color.', '#ff0000'],
      ['RED', '#ff0000 is not a brand color.', 'RED'],
      ['rgba(0, 128, 0, 0.5)', '#008000 is not a brand color.', 'rgba(0, 128, 0, 0.5)'],
      ['hsl(240 100% 50%)', '#0000ff is not a brand color.', 'hsl(240 100% 50%)'],
      ['orange', '#ffa500 is not a brand color.', 'orange'],
    ]);
  });

  it('reads <style> blocks and the legacy color and bgcolor attributes', () => {
    const html =
      '<style>@media (max-width:600px){ .x { color: #123456 !important } } a{color:#1a73e8}</style>' +
      '<body bgcolor="tomato"><font color=\'#abcdef\'>x</font></body>';
    const findings = check(brand, { html });
    expect(findings.map(({ excerpt, start, end }) => [excerpt, html.slice(start ?? 0, end ?? 0)])).toEqual([
      ['#123456', '#123456'],
      ['tomato', 'tomato'],
      ['#abcdef', '#abcdef'],
    ]);
  });

  it('ignores transparent, currentColor, inherit, fully transparent colors, non-color words and CSS variables', () => {
    const html =
      '<p style="color: currentColor; background: transparent; border-color: inherit; ' +
      'outline-color: rgba(255,0,0,0); font-family: Red, Inter; --accent: #ff0000; animation-name: tomato">x</p>';
    expect(check(brand, { html })).toEqual([]);
  });

  it('does not read colors in text, in the text field, or in a comment', () => {
    expect(
      check(brand, { text: 'color: #ff0000', html: '<p>#ff0000 red</p><!-- <p style="color:red"> -->' }),
    ).toEqual([]);
  });

  it('gives each occurrence of the same style its own offsets, on every call of a compiled checker', () => {
    const style = 'style="color:#ff0000"';
    const html = `<p ${style}>a</p><div><p ${style}>b</p></div>`;
    const checker = compileBrandChecker(brand);
    const starts = (content: string) => checker.check({ html: content }).map((finding) => finding.start);
    expect(starts(html)).toEqual([html.indexOf('#ff0000'), html.lastIndexOf('#ff0000')]);
    expect(starts(`<i>${html}</i>`)).toEqual([html.indexOf('#ff0000') + 3, html.lastIndexOf('#ff0000') + 3]);
  });

  it('finds colors inside functions such as gradients', () => {
    const html = '<td style="background-image: linear-gradient(to right, #1a73e8, #00ff00 50%)">x</td>';
    expect(excerpts(check(brand, { html }))).toEqual(['#00ff00']);
  });

  it('maps offsets through entities in a style attribute', () => {
    const html = '<p style="font-family:&quot;Inter&quot;;color:#ff0000">x</p>';
    const [finding] = check(brand, { html });
    expect(finding && html.slice(finding.start ?? 0, finding.end ?? 0)).toBe('#ff0000');
  });
});

describe('fonts_only', () => {
  const brand = brandWith({ kind: 'fonts_only', value: null });

  it('keeps the brand fonts, their fallbacks and generic families, in any case and quoting', () => {
    const html =
      '<p style="font-family: \'Playfair Display\', Georgia, serif">a</p>' +
      '<p style="font-family: inter, &quot;Helvetica Neue&quot;, helvetica neue, ARIAL, sans-serif">b</p>' +
      '<style>h1 { font: bold 24px/1.2 "Playfair Display", serif } p { font: 16px Inter }</style>';
    expect(check(brand, { html })).toEqual([]);
  });

  it('finds other families in font-family and in the font shorthand, each as written', () => {
    const html =
      '<p style="font-family: Inter, \'Comic Sans MS\', Times New Roman, serif">a</p>' +
      '<style>p { font: italic small-caps 700 12px / 30px Papyrus, cursive }</style>';
    const findings = check(brand, { html });
    expect(
      findings.map(({ excerpt, message, start, end }) => [
        excerpt,
        message,
        html.slice(start ?? 0, end ?? 0),
      ]),
    ).toEqual([
      ["'Comic Sans MS'", '"Comic Sans MS" is not a brand font.', "'Comic Sans MS'"],
      ['Times New Roman', '"Times New Roman" is not a brand font.', 'Times New Roman'],
      ['Papyrus', '"Papyrus" is not a brand font.', 'Papyrus'],
    ]);
  });

  it('reads the face attribute of <font>', () => {
    const html = '<font face="Arial, Verdana">x</font><span face="Verdana">y</span>';
    expect(excerpts(check(brand, { html }))).toEqual(['Verdana']);
  });

  it('does not take font sizes or keywords for families', () => {
    expect(
      check(brand, {
        html: '<p style="font: caption">a</p><p style="font: inherit; font-family: inherit">b</p>',
      }),
    ).toEqual([]);
  });
});

describe('the checker', () => {
  it('finds nothing without rules or content', () => {
    expect(checkBrand(brandWith(), { text: 'Hurry!!! 🎉🎉', html: '<p style="color:red">x</p>' })).toEqual(
      [],
    );
    expect(check(brandWith({ kind: 'banned_term', value: 'x' }), {})).toEqual([]);
  });

  it('is compiled once and gives the same answer on every call', () => {
    const checker = compileBrandChecker(
      brandWith({ kind: 'banned_term', value: 'hurry' }, { kind: 'palette_only', value: null }),
    );
    const content = { html: '<p style="color:red">Hurry</p>' };
    const first = checker.check(content);
    expect(first.map((finding) => finding.kind)).toEqual(['palette_only', 'banned_term']);
    expect(checker.check(content)).toEqual(first);
    expect(checker.check({ html: '<p style="color:#1a73e8">Calm</p>' })).toEqual([]);
  });

  it('orders findings by field, then place, then rule', () => {
    const brand = brandWith(
      { kind: 'max_exclamations', value: 0 },
      { kind: 'banned_term', value: 'now' },
      { kind: 'required_phrase', value: 'Acme' },
    );
    const findings = check(brand, { subject: 'Now!', text: 'Hi! now' });
    expect(findings.map(({ kind, field, start }) => [kind, field, start])).toEqual([
      ['banned_term', 'subject', 0],
      ['max_exclamations', 'subject', 3],
      ['max_exclamations', 'text', 2],
      ['banned_term', 'text', 4],
      ['required_phrase', null, null],
    ]);
  });

  it('survives broken HTML and CSS', () => {
    const brand = brandWith({ kind: 'banned_term', value: 'hurry' }, { kind: 'palette_only', value: null });
    const html = '<p style="color:: ;;#ff0000 red(; {">hurry <b <i>&amp</p><style>}}} a{color:#f00';
    const findings = check(brand, { html });
    expect(findings.some((finding) => finding.kind === 'banned_term')).toBe(true);
    expect(
      findings.filter((finding) => finding.kind === 'palette_only').map((finding) => finding.excerpt),
    ).toContain('#f00');
  });
});
