/** The part of node-gyp-build (no types of its own) plugstack uses: where the addon for this Node is. */
declare module 'node-gyp-build' {
  const gypBuild: { path(dir: string): string };
  export default gypBuild;
}
