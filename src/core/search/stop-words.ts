/**
 * Common English function words, dropped from documents and queries alike when the
 * tokenizer's `stopWords` is on. Lowercase, unstemmed. Words that name an action a
 * tool might perform ("get", "show", "list", "find", "all") are deliberately absent.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "about", "after", "am", "an", "and", "any", "are", "as", "at",
  "be", "been", "before", "being", "both", "but", "by",
  "can", "could",
  "did", "do", "does", "doing",
  "each", "either", "etc",
  "for", "from",
  "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
  "i", "if", "in", "into", "is", "it", "its", "itself",
  "just",
  "me", "might", "more", "most", "must", "my", "myself",
  "no", "nor", "not",
  "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "own",
  "please",
  "shall", "she", "should", "so", "some", "such",
  "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too",
  "us",
  "very",
  "was", "we", "were", "what", "when", "where", "whether", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
  "you", "your", "yours", "yourself",
]);
