// @ts-check
/** es: the catalogue of en.js, translated key by key. */
export default {
};
