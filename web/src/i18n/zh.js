// @ts-check
/** zh: the catalogue of en.js, translated key by key. */
export default {
};
