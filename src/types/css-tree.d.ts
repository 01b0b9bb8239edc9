// css-tree's parser and walker on their own (src/core/brand-check.ts): the package's main entry also loads
// its lexer, which reads JSON data files through `require` and so breaks in the bundle (build.ts).
// @types/css-tree declares only the main entry; these are the same functions.
declare module 'css-tree/parser' {
  import type { parse } from 'css-tree';

  const parser: typeof parse;
  export default parser;
}

declare module 'css-tree/walker' {
  import type { walk } from 'css-tree';

  const walker: typeof walk;
  export default walker;
}
