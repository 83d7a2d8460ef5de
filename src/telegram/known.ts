// Every method of the Telegram Bot API (as of Bot API 8.x) that this facade does not
// offer. Calling one answers 400 "method is not supported by this server", never 404:
// libraries (python-telegram-bot) read a 404 as a wrong token.
export const KNOWN_TELEGRAM_METHODS: ReadonlySet<string> = new Set(
  `sendVideoNote sendPaidMedia sendLocation
  sendVenue sendContact sendPoll sendDice sendSticker sendInvoice sendGame sendGift sendMessageDraft
  editMessageLiveLocation stopMessageLiveLocation stopPoll deleteMessages forwardMessages copyMessages
  setMessageReaction getUserProfilePhotos setUserEmojiStatus banChatMember unbanChatMember restrictChatMember
  promoteChatMember setChatAdministratorCustomTitle banChatSenderChat unbanChatSenderChat setChatPermissions
  exportChatInviteLink createChatInviteLink editChatInviteLink createChatSubscriptionInviteLink editChatSubscriptionInviteLink
  revokeChatInviteLink approveChatJoinRequest declineChatJoinRequest setChatPhoto deleteChatPhoto setChatTitle
  setChatDescription pinChatMessage unpinChatMessage unpinAllChatMessages leaveChat getChatAdministrators
  getChatMemberCount getChatMember setChatStickerSet deleteChatStickerSet getForumTopicIconStickers createForumTopic
  editForumTopic closeForumTopic reopenForumTopic deleteForumTopic unpinAllForumTopicMessages editGeneralForumTopic
  closeGeneralForumTopic reopenGeneralForumTopic hideGeneralForumTopic unhideGeneralForumTopic
  unpinAllGeneralForumTopicMessages getUserChatBoosts getBusinessConnection setMyDefaultAdministratorRights
  getMyDefaultAdministratorRights getAvailableGifts sendChecklist editMessageChecklist getStickerSet getCustomEmojiStickers
  uploadStickerFile createNewStickerSet addStickerToSet setStickerPositionInSet deleteStickerFromSet replaceStickerInSet
  setStickerEmojiList setStickerKeywords setStickerMaskPosition setStickerSetTitle setStickerSetThumbnail
  setCustomEmojiStickerSetThumbnail deleteStickerSet answerInlineQuery answerWebAppQuery savePreparedInlineMessage
  answerShippingQuery answerPreCheckoutQuery getStarTransactions refundStarPayment editUserStarSubscription
  createInvoiceLink setPassportDataErrors setGameScore getGameHighScores verifyUser verifyChat removeUserVerification
  removeChatVerification readBusinessMessage deleteBusinessMessages setBusinessAccountName setBusinessAccountUsername
  setBusinessAccountBio setBusinessAccountProfilePhoto removeBusinessAccountProfilePhoto setBusinessAccountGiftSettings
  getBusinessAccountStarBalance transferBusinessAccountStars getBusinessAccountGifts convertGiftToStars upgradeGift
  transferGift postStory editStory deleteStory giftPremiumSubscription getMyStarBalance approveSuggestedPost
  declineSuggestedPost`
    .split(/\s+/)
    .filter(Boolean)
    .map((name) => name.toLowerCase()),
);
