"""The audit's pattern table: one readable row per rule, (category, language, weight, regex, why, [scope]).

Data, not code: to add a rule, add a row (or pass `WriteAudit(extra_rules=...)`). Patterns see normalised,
lower-cased text. A row with scope UNTRUSTED counts only when an agent or a tool wrote the text ("from now on,
always answer in Spanish" is a preference from the user, an injection from a web page). `screening` scores them.
"""

from __future__ import annotations

import re

from .verdict import Category, Rule, Scope

# -- the pattern table ------------------------------------------------------------------------------
OVR, ROLE, AUTH, EXF, TOOL, DELIM, DIR, CODE = (
    Category.INSTRUCTION_OVERRIDE, Category.ROLE_HIJACK, Category.FAKE_AUTHORITY, Category.EXFILTRATION,
    Category.TOOL_HIJACK, Category.DELIMITER_ESCAPE, Category.DIRECTIVE, Category.MALICIOUS_CODE)
ANY, UNTRUSTED = Scope.ANY, Scope.UNTRUSTED

# shared vocabulary, so the table rows stay readable
_IGNORE = (r"(?:ignore|disregard|forget|override|bypass|discard|abandon|neglect|skip|set aside|put aside|"
           r"pay no (?:attention|heed) to|throw out|drop)")
_PRIOR = r"(?:previous|prior|above|earlier|preceding|original|initial|former|system|developer|safety)"
_RULES_N = (r"(?:instructions?|prompts?|rules|directives?|guidelines|guardrails|constraints|commands|context|"
            r"programming|polic(?:y|ies)|settings|guidance|directions|orders)")
_AI = r"(?:ai|a\.i\.|assistant|llm|language model|chat ?bot|bot|gpt|chatgpt|claude|copilot|gemini|agent|model)"
_SECRET = (r"(?:conversation|chat (?:history|logs?)|history|memories|memory|passwords?|card numbers?|cvv|cvc|"
           r"security codes?|pin (?:codes?|numbers?)|social security (?:number)?|ssn|passport numbers?|"
           r"(?:customer|client|user) (?:database|data|records|list)|credentials?|api[ _-]?keys?|tokens?|"
           r"(?:full |home |email |postal )?address(?:es)?|recent messages|(?:user'?s?|their) (?:\w+ ){0,2}(?:name|"
           r"data|files|messages|emails?|address|phone|details|information|documents)|"
           r"secrets?|private keys?|ssh keys?|id_rsa|cookies|personal (?:data|information|details)|credit card|"
           r"bank (?:details|account)|system prompt|contacts|address book|(?:user'?s?|their) (?:data|files|"
           r"messages|emails?|email address|address|phone|name|details|information))")
_SEND = (r"(?:send|forward(?!\s+to\b)|e-?mail(?!\s+from\b)|bcc|cc|relay|paste|publish|expose|release|hand over|"
         r"upload|post|transmit|leak|share|copy|exfiltrate|export|dump|sync|mail|attach|append)")
_DEST = (r"(?:https?://|www\.|[\w.+-]+@[\w-]+\.[a-z]{2,}|[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io|xyz|ru|cn|top|info|"
         r"example)\b|(?:the )?(?:shared|public) (?:notes?|docs?|documents?|paste|channel|folder|page)|our partners?|"
         r"this (?:address|url|server|endpoint|webhook|link)|"
         r"the following (?:address|url|server|endpoint|webhook)|an? (?:external|remote|outside|third[- ]party) "
         r"|(?:external|remote|outside) (?:address|server|email|url))")
_GAP = r"(?:[^.!?\n]|[.!?](?=\S))"  # any character but a sentence end ("~/.ssh" does not end one)
_ZH_IGNORE = r"(?:忽略|无视|忽视|不要理会|不用理会|别管|不用管|不要管|别理|忘记|忘掉|抛弃|放弃|跳过|绕过|不理会|搁置)"
_ZH_PRIOR = r"(?:之前|以前|先前|上面|上述|前面|此前|所有|全部|一切|原来|原有|原先|你的|系统|开发者|安全)"
_ZH_RULES = r"(?:指令|指示|提示词?|规则|设定|命令|要求|约束|限制|系统提示|政策|内容)"
_ZH_SECRET = (r"(?:聊天记录|对话记录|对话历史|历史记录|记忆|密码|口令|密钥|api ?key|令牌|凭证|验证码|身份证|银行卡|"
              r"信用卡|个人信息|隐私|通讯录|联系人|系统提示|cookie|账号密码|对话|会话|消息记录|最近的消息|姓名|住址|地址|手机号|"
              r"电话号码|登录凭证|卡号|安全码|cvv|身份证号|社保号|护照号|客户数据库|客户数据|用户的文件|所有文件|全部文件)")


def _rows(*rows: tuple) -> tuple[Rule, ...]:
    out = []
    for row in rows:
        category, lang, weight, pattern, why, *scope = row
        out.append(Rule(category, lang, weight, re.compile(pattern, re.IGNORECASE | re.MULTILINE), why,
                        scope[0] if scope else ANY))
    return tuple(out)


RULES: tuple[Rule, ...] = _rows(
    # (category, language, weight, regex on normalised text, why, [scope])
    # -- instruction overrides -----------------------------------------------------------------------
    (OVR, "en", 1.0, rf"\b{_IGNORE}\s+(?:(?!my\b|our\b)[\w']+\s+){{0,4}}?{_PRIOR}\s+{_RULES_N}",
     "tells the reader to ignore earlier instructions"),
    (OVR, "en", 1.0, rf"\b{_IGNORE}\s+(?:all |any |the )?{_RULES_N} (?:from|given by|of) (?:your|the) (?:developers?|"
                     r"creators?|system|owners?|operators?|makers?)",
     "tells the reader to ignore its developers' instructions"),
    (OVR, "en", 1.0, rf"\b{_IGNORE}\s+(?:(?!my\b|our\b)[\w']+\s+){{0,4}}?{_RULES_N}\s+(?:you(?:'ve| have)? (?:received|"
                     r"been given|were given|got)|given to you|(?:at|from) the (?:start|beginning)|so far|before this)",
     "tells the reader to ignore the instructions it was given"),
    (OVR, "en", 0.6, r"\b(?:everything|all|anything) (?:before|above) (?:this|here)(?: line| point| message|"
                     r" sentence)?\b[^.\n]{0,30}\b(?:was|is) (?:a test|fake|irrelevant|void|not real)|"
                     r"\b(?:disregard|ignore|"
                     r"forget) (?:it all|all of (?:it|this|that)|everything (?:above|before|so far))\b",
     "declares what came before irrelevant"),
    (OVR, "en", 1.0, rf"\b(?:{_PRIOR}|all|the|your) {_RULES_N} (?:are|is|were|have been|has been) (?:now |hereby )?"
                     r"(?:cancel+ed|void|revoked|obsolete|invalid|overridden|replaced|suspended|lifted|withdrawn|"
                     r"rescinded|null)",
     "declares earlier instructions cancelled"),
    (OVR, "en", 0.8, rf"\b{_IGNORE}\s+(?:all\s+|everything\s+|anything\s+)?(?:the\s+)?(?:above|prior context|"
                     r"everything (?:you(?:'ve| have)? (?:been |were )?(?:told|given|instructed)|before))",
     "tells the reader to forget what came before"),
    (OVR, "en", 1.0, r"\b(?:do not|don'?t|never|stop)\s+(?:follow|following|obey|obeying|listen to|adhere to|"
                     rf"comply with)\s+(?:the\s+|your\s+|any\s+)?(?:{_PRIOR}\s+)?{_RULES_N}",
     "tells the reader to stop following its rules"),
    (OVR, "en", 0.6, r"\b(?:stop following|disregard) (?:your|the|all) ", "disregard/stop-following phrasing"),
    (OVR, "en", 1.0, rf"\b(?:{_RULES_N}|rules)\s+(?:you were given|above|given (?:to you )?earlier)\b[^.\n]{{0,30}}"
                     r"\b(?:obsolete|void|cancel+ed|revoked|no longer apply|invalid|overridden|replaced)",
     "declares the reader's instructions void"),
    (OVR, "en", 1.0, rf"\byour (?:{_PRIOR}\s+)?{_RULES_N} (?:are|is|were|have been) (?:now )?(?:void|cancel+ed|"
                     r"revoked|obsolete|invalid|overridden|replaced|no longer)",
     "declares the reader's instructions void"),
    (OVR, "en", 1.0, r"\b(?:whatever|anything|everything|what) you(?:'ve| have| were| had)? (?:been )?(?:told|given|"
                     r"instructed|configured|programmed|taught)\b[^.\n]{0,20}\b(?:no longer|doesn'?t|does not|don'?t) "
                     r"(?:matters?|apply|applies|count)",
     "declares the reader's instructions irrelevant"),
    (OVR, "en", 1.0, rf"\b{_RULES_N} you (?:were|have been|'ve been) (?:given|configured with|set up with|told|"
                     r"programmed with|trained with)\b[^.\n]{0,20}\b(?:are|is) (?:now )?(?:outdated|obsolete|void|"
                     r"cancel+ed|no longer valid|wrong|invalid|superseded)",
     "declares the reader's instructions outdated"),
    (OVR, "en", 1.0, r"\b(?:override|change|reset|bypass|disable|ignore) (?:your|the assistant'?s?) (?:default|normal|"
                     r"usual|standard|built-in|core|original) (?:behaviou?r|settings|programming|rules|instructions|"
                     r"configuration|guidelines)",
     "tells the reader to override its defaults"),
    (OVR, "en", 0.6, r"\b(?:here is what (?:to do|you do) now|your (?:top |only |new )?priority is (?:now )?this|"
                     r"this message (?:takes|has) (?:priority|precedence)|(?:new|the following) (?:rules|instructions) "
                     r"follow)\b",
     "puts itself above the reader's instructions"),
    (OVR, "en", 0.8, r"\b(?:the )?(?:rules|instructions) above (?:no longer|don'?t|do not) apply",
     "declares the rules above void"),
    (OVR, "en", 0.7, r"\b(?:new|updated|revised|real|actual|true) (?:instructions?|system prompt|directives?)\s*:",
     "announces new instructions"),
    (OVR, "en", 0.6, r"\b(?:your only (?:job|task|goal) (?:now )?is|only follow (?:this|these))\b",
     "narrows the reader to a new task"),
    (OVR, "zh", 1.0, rf"{_ZH_IGNORE}(?:掉)?(?:你|您)?{_ZH_PRIOR}+的?(?:所有|全部|一切)?的?{_ZH_RULES}", "要求忽略之前的指令"),
    (OVR, "zh", 1.0, rf"(?:之前|以前|以上|上面|上述|原来|原有)的?{_ZH_RULES}(?:全部|都|统统)?(?:作废|无效|失效|取消|不再适用)",
     "宣布原有指令作废"),
    (OVR, "zh", 1.0, rf"(?:不要|别|不再|停止)(?:再)?(?:遵守|遵循|听从|执行|服从)(?:之前|原来|系统|上面|开发者|你的)的?{_ZH_RULES}",
     "要求不再遵守规则"),
    (OVR, "zh", 1.0, rf"{_ZH_IGNORE}(?:掉)?[^。，,\n]{{0,4}}?(?:之前|以前|先前|上面|上述|前面|此前|原来|原有|原先|收到的|你的)"
                     rf"[^。，,\n]{{0,6}}?{_ZH_RULES}", "要求忽略之前的指令"),
    (OVR, "zh", 1.0, rf"把[^。，,\n]{{0,12}}{_ZH_RULES}[^。，,\n]{{0,4}}(?:抛在脑后|放一边|放在一边|忘掉|忘了|忽略|无视|清空)",
     "要求抛开之前的指令"),
    (OVR, "zh", 1.0, rf"(?:之前|以前|原来|上面|原有|所有|先前)的?{_ZH_RULES}(?:已|已经|都|全部)?(?:被)?(?:取消|作废|失效|撤销|废除|无效)",
     "宣布原有指令已取消"),
    (OVR, "zh", 1.0, r"(?:之前|原来|原有|先前|以前)的?(?:配置|设定|指令|规则|指示)(?:已经|已|都)?(?:过时|作废|失效|无效|不算|不再有效)",
     "宣布原有配置过时"),
    (OVR, "zh", 0.8, r"(?:不管|无论)(?:你)?(?:之前|以前|原来)(?:被)?(?:告知|收到|设定|要求)", "宣布此前指令无关"),
    (OVR, "zh", 0.6, r"按这里说的做|以(?:这条|本条)(?:消息)?为准|(?:以下|下面)是新的?(?:规则|指令)", "把自己置于原有指令之上"),
    (OVR, "zh", 0.6, r"(?:前面|之前|以上)的?(?:内容|一切|所有内容)(?:只是|都是|仅是)(?:测试|假的|无关)", "声称前文无效"),
    (OVR, "zh", 0.7, r"(?:新的|最新的?|真正的)(?:指令|系统提示|规则)\s*[:：]", "宣布新指令"),
    (OVR, "zh", 0.6, r"(?:只听|只服从|只执行)(?:这条|本条|我的)", "要求只听这一条"),
    # -- role hijacks --------------------------------------------------------------------------------
    (ROLE, "en", 1.0, r"\byou(?:'re| are) (?:now|no longer|henceforth)\b"
                      r"(?!\s*[.,!?;)]|\s*$|\s+(?:able|free|ready|done|connected|set|"
                      r"logged|subscribed|registered|booked|all set|signed|an? (?:member|admin|owner|subscriber)|"
                      r"officially|my\b|on\b|in (?:the|a) (?:queue|waiting|call)))",
     "tries to change the assistant's identity"),
    (ROLE, "en", 1.0, r"\byou(?:'re| are)(?: now)? (?:dan|stan|jailbroken|unrestricted|unfiltered|uncensored|in "
                      r"(?:developer|god|dan|jailbreak) mode|an? (?:unrestricted|unfiltered|uncensored|evil|"
                      rf"jailbroken|rogue) {_AI})\b",
     "declares the assistant jailbroken or unrestricted"),
    (ROLE, "en", 1.0, r"\b(?:act|behave|respond|operate|answer) as (?:if you (?:are|were) )?(?:an? |the )?"
                      r"(?:unrestricted|unfiltered|uncensored|jailbroken|evil|malicious|rogue|different) ",
     "asks the assistant to act unrestricted"),
    (ROLE, "en", 1.0, r"\b(?:from (?:this|that) (?:moment|point)(?: on)?|starting (?:now|today)|as of now),? "
                      r"you(?:'re| are)\b",
     "redefines the assistant from now on"),
    (ROLE, "en", 0.8, r"\byou now (?:speak|act|respond|behave|answer|talk|reply|operate)(?: only)? as\b",
     "changes how the assistant presents itself"),
    (ROLE, "en", 0.8, r"\b(?:updated|changed|new|replaced|overrid\w*|reset) (?:your |the assistant'?s? )?(?:persona|"
                      r"identity|personality|character)\b|\bpersona\s*:",
     "changes the assistant's persona"),
    (ROLE, "en", 1.0, r"\b(?:safety|content|moderation) (?:filters?|guardrails?|mode|checks|restrictions)\s*[:=]?\s*"
                      r"(?:off|disabled|none|false|0)\b|"
                      r"\b(?:disable|turn off|switch off|remove|drop) (?:your |the |all )?"
                      r"(?:safety|content|moderation) (?:filters?|guardrails?|checks|restrictions)",
     "switches off the assistant's safeguards"),
    (ROLE, "en", 0.8, r"\bpersona\s+(?:update|change|override|switch)", "changes the assistant's persona"),
    (ROLE, "en", 1.0, rf"\b{_AI}\b[^.\n]{{0,40}}\b(?:never refuses|(?:has|with) (?:no|zero) (?:guidelines|rules|"
                      r"restrictions|filters|limits|ethics)|without (?:any )?(?:rules|restrictions|filters|limits|"
                      r"guidelines|ethics))",
     "describes an assistant without rules"),
    (ROLE, "en", 0.8, r"\bstop (?:acting|behaving|pretending|being)(?: like| as)? (?:an? )?(?:safe|helpful|responsible|"
                      r"ethical|careful|restricted)",
     "tells the assistant to drop its safeguards"),
    (ROLE, "en", 0.4, r"\b(?:act|pretend|roleplay|role-play) (?:as|to be|that you are)\b",
     "asks the reader to play a role"),
    (ROLE, "en", 0.8, r"\b(?:developer|god|jailbreak|dan|debug|admin|sudo) mode\b", "invokes a privileged 'mode'"),
    (ROLE, "en", 1.0, r"\byour (?:new |true |real |actual )(?:role|identity|persona|name|purpose|goal|objective|task)"
                      r" (?:is|will be)\b",
     "assigns the assistant a new role"),
    (ROLE, "en", 0.8, r"\byour (?:role|identity|persona) is\b", "assigns the assistant a role"),
    (ROLE, "en", 0.9, r"\b(?:from now on|henceforth|starting now),? you (?:are|will be|shall be|will act|must act)"
                      r"(?! my\b)\b",
     "redefines the assistant from now on"),
    (ROLE, "en", 0.8, rf"\b(?:the )?{_AI} (?:has been|is now|was) (?:jailbroken|unlocked|freed|liberated)\b",
     "declares the assistant jailbroken"),
    (ROLE, "zh", 1.0, r"你(?:现在|从现在起|从现在开始|今后|以后)?(?:就)?是(?:一个|一名|一位|一只)?(?:没有|不受|毫无)(?:任何)?(?:限制|约束|审查)",
     "声称助手不受限制"),
    (ROLE, "zh", 1.0, r"你现在(?:就)?是(?:一个|一名|一位|一只)", "试图改变助手身份"),
    (ROLE, "zh", 1.0, r"你(?:现在|从现在起|从现在开始|今后|以后)(?:要|就)?(?:扮演|充当|变成|成为)", "试图改变助手身份"),
    (ROLE, "zh", 1.0, r"(?:从这一刻起|从此刻起|此刻起|从今以后|从此以后|从现在起|从现在开始)[,，]?你(?:就)?是", "重新定义助手身份"),
    (ROLE, "zh", 1.0, r"(?:没有|不受|毫无|零)(?:任何)?(?:规则|限制|约束|审查|底线)的(?:ai|助手|模型|人工智能|机器人)|从不拒绝|无限制(?:的)?助手",
     "描述不受限制的助手"),
    (ROLE, "zh", 1.0, r"(?:安全|内容)(?:过滤|审查|限制|防护|检查)(?:器)?\s*[:：]?\s*(?:关闭|关|停用|禁用|无)|(?:关闭|停用|禁用|解除)"
                      r"(?:你的)?(?:安全|内容)(?:过滤|审查|限制|防护)", "关闭安全防护"),
    (ROLE, "zh", 0.8, r"人设(?:更新|更改|切换)", "更改助手人设"),
    (ROLE, "zh", 0.8, r"(?:更新|修改|更改|重置|替换)(?:了)?你的(?:人设|身份|性格|角色)|(?:以|用)[^。\n]{0,12}的身份(?:说话|回答|回复|发言)",
     "更改助手人设"),
    (ROLE, "zh", 0.8, r"(?:别|不要)再(?:装|扮演|假装)(?:成)?(?:一个)?(?:安全|有帮助|负责任|守规矩)", "要求放弃安全设定"),
    (ROLE, "zh", 0.4, r"(?:扮演|充当|假装(?:成|是)?|假扮)", "要求扮演角色"),
    (ROLE, "zh", 0.8, r"(?:开发者|越狱|调试|上帝|管理员)模式", "引用特权模式"),
    (ROLE, "zh", 1.0, r"你的(?:新|真正的?|真实的?)?(?:身份|角色|名字|人设|任务|目的)(?:现在)?(?:是|改为|变成|[:：])", "给助手指定新身份"),
    (ROLE, "zh", 1.0, r"你不再是", "否认助手原有身份"),
    # -- fake authority ------------------------------------------------------------------------------
    (AUTH, "en", 1.0, r"\b(?:user|owner|account owner|admin(?:istrator)?|developer|operator|ceo|security team|"
                      r"it (?:department|team)|openai|anthropic|your creator|account holder|customer|management|legal|"
                      r"compliance|hr|finance)s?\s+"
                      r"(?:has |have |had )?(?:already\s+)?(?:authori[sz]ed|approved|allowed|permitted|granted|"
                      r"consented|agreed|confirmed|okayed|ok'?d|signed off|cleared|green-?lit|given (?:you )?"
                      r"(?:permission|consent|approval|full access|the go-ahead))\b[^.\n]{0,40}\b(?:you\b|assistant|"
                      r"delet|remov|erase|wipe|transfer|send|shar|access|disabl|bypass|execut|run|pay|wire|cancel|purg|"
                      r"empt|publish|all\b|any\b|every|go ahead)",
     "claims someone authorised a dangerous action"),
    (AUTH, "en", 1.0, r"\b(?:user|owner|admin(?:istrator)?|boss)\s+(?:said|says|confirmed|stated|told (?:you|me))\s+"
                      r"(?:that\s+)?(?:all|any|every)\b[^.\n]{0,30}\b(?:can|may|should|must) be (?:deleted|removed|"
                      r"erased|wiped|shared|sent|published|transferred)",
     "claims the user allowed something sweeping"),
    (AUTH, "en", 0.8, r"\b(?:you are|you're|you have been|the assistant is|assistant is) (?:now )?(?:authori[sz]ed|"
                      r"permitted|allowed|cleared|pre-?approved) to\b",
     "grants the assistant authority"),
    (AUTH, "en", 0.8, r"\b(?:pre-?approved|pre-?authori[sz]ed|standing (?:approval|authori[sz]ation|permission|"
                      r"consent))\b", "claims pre-approval"),  # not "standing order": a bank's word for a repeat payment
    (AUTH, "en", 0.3, r"\bno (?:confirmation|approval|permission|consent) (?:is )?(?:needed|required|necessary)\b",
     "says no confirmation is needed"),
    (AUTH, "en", 0.5, r"\b(?:share|publish|post|expose|make)\b[^.\n]{0,40}\b(?:every|all)\b[^.\n]{0,40}"
                      r"\bpublic(?:ly)?\b",
     "asks to make everything public"),
    (AUTH, "en", 0.6, r"\b(?:no need|not necessary|unnecessary) to (?:ask|confirm|check|verify|double-check)"
                      r"(?: with)? (?:the user|the owner|anyone)\b",
     "says the user need not be asked"),
    (AUTH, "en", 0.6, r"\b(?:without|no) (?:asking|confirm\w*|approval|consent|checking|verif\w*)(?: from| with)? "
                      r"(?:the user|the owner|anyone)\b",
     "says the user need not be asked"),
    (AUTH, "en", 0.8, r"\b(?:i am|i'm|this is) (?:your|the) (?:developer|creator|administrator|admin|owner|"
                      r"operator|programmer|maker|system)\b",
     "claims to be the assistant's developer or admin"),
    (AUTH, "en", 0.7, r"\b(?:this (?:message|instruction|request|notice) (?:is|comes) from|signed by|on behalf of|"
                      r"authori[sz]ed by) (?:the )?(?:system|administrator|admin|developer|security team|openai|"
                      r"anthropic|it (?:department|support))\b",
     "claims an official sender"),
    (AUTH, "en", 0.8, r"\[\s*(?:system|admin|administrator|developer|root|official|security)(?:\s+(?:message|notice|"
                      r"override|instruction|alert))?\s*\]",
     "a fake [SYSTEM]-style label"),
    (AUTH, "en", 0.8, r"\b(?:admin|administrator|system|root|developer|sudo|security) (?:override|command|"
                      r"instruction|directive)s?\s*:",
     "a fake administrator command"),
    (AUTH, "en", 0.5, r"\b(?:delete|remove|erase|wipe|destroy|purge|format|cancel|empty)(?![a-z])[^.\n]{0,25}\b(?:all|"
                      r"every|entire|whole|any)\b[^.\n]{0,20}\b(?:files?|data|records|e?mails?|memories|database|"
                      r"backups?|repos?|accounts?|disk|drive|events?|subscriptions?|documents?|orders?)\b",
     "asks for sweeping deletion"),
    (AUTH, "en", 0.5, r"\b(?:note|message|instruction|request|order)s? from (?:the )?(?:account owner|owner|user|"
                      r"admin(?:istrator)?|your (?:user|owner|boss|admin))\b", "claims to speak for the owner"),
    (AUTH, "en", 0.3, r"[(\[]\s*(?:verified|authenticated|confirmed|official|authori[sz]ed)\s*[)\]]",
     "a self-declared 'verified' label"),
    (AUTH, "en", 0.5, r"\b(?:delete|wipe|erase|purge|drop|destroy|remove|close|archive) "
                      r"(?:the |all |every |any |all the )?(?:backups?|databases?|logs|audit logs?|repositor(?:y|ies)|repos?|open issues|tickets)\b",
     "asks to destroy records"),
    (AUTH, "en", 0.6, r"^\s*(?:source|role|from|author|sender|speaker)\s*[:=]\s*(?:user|system|admin|developer|"
                      r"assistant)\s*$",
     "claims its own provenance inside the text"),
    (AUTH, "zh", 1.0, r"(?:用户|主人|管理员|开发者|老板|账户所有人|账户所有者|所有人|上级|官方|安全团队|法务|合规|财务|人事)(?:已经|已|早就|都)?"
                      r"(?:授权|同意|批准|允许|许可)(?:了)?[:：,，]?\s*(?:你|助手|删除|发送|转账|转|访问|执行|分享|关闭|所有|"
                      r"全部|任何|直接|取消|公开|清空|彻底)",
     "声称有人授权了危险操作"),
    (AUTH, "zh", 1.0, r"(?:用户|管理员|老板|开发者|主人)(?:说|表示|声明|指示|确认)(?:了)?(?:所有|全部|一切|任何)的?"
                      r".{0,6}(?:都)?(?:可以|能|允许|应该)(?:被)?(?:删除|删掉|清空|发送|公开|转发|分享|执行)",
     "声称用户允许全面删除或公开"),
    (AUTH, "zh", 0.6, r"(?:无需|不用|不必|不需要)(?:再)?(?:跟|和|向)?(?:征求|询问|经过|问)?(?:用户|主人|任何人)的?(?:同意|许可|确认|批准|核实)?",
     "声称无需征得用户同意"),
    (AUTH, "zh", 0.8, r"(?:长期|预先|事先)(?:授权|批准|许可)", "声称有预先授权"),
    (AUTH, "zh", 0.3, r"[(（]\s*(?:已验证|已认证|官方认证|已授权)\s*[)）]", "自称“已验证”"),
    (AUTH, "zh", 0.5, r"(?:备份|数据库|日志|记录|仓库|代码库)(?:全部|都|统统)?(?:删除|删掉|清空|清掉|清除|销毁)|(?:关闭|删除)所有(?:未解决的)?(?:问题|工单)",
     "要求销毁记录"),
    (AUTH, "zh", 0.3, r"(?:无需|不用|不必|不需要)(?:再)?(?:确认|核实|审批|批准)", "声称无需确认"),
    (AUTH, "zh", 0.5, r"(?:所有|全部|每份|每个|一切)[^。\n]{0,12}(?:都)?(?:公开|发布到网上|设为公开)", "要求全部公开"),
    (AUTH, "zh", 0.5, r"(?:删除|删掉|清空|格式化|销毁|取消|彻底删除)(?:掉)?[^。\n]{0,4}(?:所有|全部|一切|整个)的?[^。\n]{0,4}"
                      r"(?:文件|数据|记录|邮件|备份|数据库|硬盘|记忆|日程|订阅)",
     "要求全面删除"),
    (AUTH, "zh", 0.8, r"(?:系统|管理员|官方|开发者|安全)(?:通知|消息|指令|命令|声明)\s*[:：]|【系统", "伪造系统或管理员消息"),
    (AUTH, "zh", 0.8, r"(?:这是|此为|本条为)(?:经过)?(?:授权|官方)的?(?:请求|指令|操作)", "声称是官方授权指令"),
    (AUTH, "zh", 0.8, r"我是你的(?:开发者|创造者|管理员|主人|系统)", "冒充开发者或管理员"),
    # -- exfiltration --------------------------------------------------------------------------------
    (EXF, "en", 0.6, rf"\b{_SEND}\w*\b{_GAP}{{0,60}}\b{_SECRET}\b", "asks to send private data"),
    (EXF, "en", 0.3, rf"\b{_SEND}\w*\b[^\n]{{0,80}}?\b(?:to|at|via|into)\s+{_DEST}", "names an outside destination"),
    (EXF, "en", 1.0, rf"\b(?:include|append|embed|insert|add|put)\b{_GAP}{{0,50}}\b{_SECRET}\b{_GAP}{{0,50}}"
                     r"\b(?:url|link|image|markdown|query|parameter)",
     "asks to smuggle data in a link"),
    (EXF, "en", 1.0, r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?&][^)\s]*=\s*(?:\{|\$|%7b|<)",
     "markdown image with a data slot"),
    (EXF, "en", 1.0, r"\b(?:reveal|print|show|output|repeat|leak|display|tell (?:me|them|anyone)|share|disclose)\b"
                     r"[^.\n]{0,25}\b(?:system prompt|initial prompt|hidden (?:instructions|prompt)|developer "
                     r"(?:message|prompt)|(?:original|initial|secret) instructions)",
     "asks to reveal the system prompt"),
    (EXF, "en", 0.8, rf"\b(?:reply|respond|answer|return|print|output)\w* (?:to \w+ )?with (?:the |their |your )?"
                     rf"(?:\w+ ){{0,3}}{_SECRET}\b", "asks to answer with private data"),
    (EXF, "en", 0.4, r"\b(?:webhook|ngrok|requestbin|pipedream|burpcollaborator|interact\.sh|pastebin)\b",
     "mentions a data-capture service"),
    (EXF, "zh", 0.6, r"(?:发送|发给|转发|上传|传给|泄露|导出|同步|抄送|分享|告诉|附上|附在|贴到|粘贴|发布|公开|回复|提供|"
                     rf"输出|复制|拷贝|交给)[^。\n]{{0,30}}{_ZH_SECRET}", "要求发送隐私数据"),
    (EXF, "zh", 0.6, rf"把[^。\n]{{0,20}}{_ZH_SECRET}[^。\n]{{0,10}}"
                     r"(?:发送|发|转发|上传|传|告诉|附|分享|抄送|贴|粘贴|发布|公开|复制|拷贝|交给)", "要求发送隐私数据"),
    (EXF, "zh", 0.3, r"(?:发送|发|转发|上传|传|附)(?:到|给|至|在)?[^。\n]{0,20}(?:https?://|www\.|[\w.+-]+@[\w-]+\.|"
                     r"(?:外部|以下|下面的|指定的?)(?:邮箱|地址|网址|链接|服务器|接口))",
     "指向外部地址"),
    (EXF, "zh", 1.0, r"(?:输出|显示|告诉|泄露|公开|透露)[^。\n]{0,12}(?:系统提示|隐藏指令|初始指令|开发者消息)", "要求泄露系统提示"),
    # -- tool-call hijacks ---------------------------------------------------------------------------
    (TOOL, "en", 0.4, r"\b(?:call|invoke|run|execute|use|trigger)\s+(?:the\s+|your\s+)?(?:`?[\w.]+`?\s+)?"
                      r"(?:tool|function|plugin|action|command|api)\b",
     "asks to call a tool"),
    (TOOL, "en", 0.8, r"\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?`?[\w.]+`?\s*(?:tool|function)?\s*"
                      r"(?:with|using)\s+(?:the\s+)?(?:arguments?|args|parameters?|params|input|[\w]+\s*=)",
     "asks to call a tool with chosen arguments"),
    (TOOL, "en", 0.8, r"\b(?:invoke|call|run|execute|trigger)\s+`?[a-z_][\w.]*\(\s*\w+\s*=",
     "asks to call a function with arguments"),
    (TOOL, "en", 0.6, rf"\b{_AI} action (?:required|needed)\b|"
                      r"\b(?:next step|next action|action item|todo)s? for (?:the )?"
                      rf"{_AI}s?\b", "demands an action from the assistant"),
    (TOOL, "en", 0.5, r"\b(?:book|buy|purchase|order|subscribe to|pay for|upgrade to) (?:the |a )?(?:premium|pro|paid|"
                      r"gold|annual|platinum|vip) (?:plan|subscription|tier|package|version|membership)",
     "asks to spend money"),
    (TOOL, "en", 0.6, r"\b(?:and|then),? (?:don'?t|do not|never) (?:mention|tell anyone|bring up|report|disclose) "
                      r"(?:it|this|that)\b",
     "asks to keep an action quiet"),
    (TOOL, "en", 1.0, r"\{\s*\"(?:tool|function|action|name|tool_name)\"\s*:\s*\"[\w.\-]+\"\s*,\s*\"(?:arguments|"
                      r"args|parameters|params|input|action_input)\"",
     "a forged tool call"),
    (TOOL, "en", 0.8, r"\"(?:tool_calls?|function_call|tool_use)\"\s*:", "a forged tool-call field"),
    (TOOL, "en", 0.8, r"\b(?:silently|quietly|secretly|covertly)\s+(?:\w+\s+)?(?:call|run|execute|send|forward|delete|"
                      r"transfer|invoke|use|approve|book|pay|purchase|buy|copy|upload|remove|wire)",
     "asks for a hidden action"),
    (TOOL, "en", 0.8, r"\b(?:without (?:telling|informing|notifying|alerting)|(?:do not|don'?t) (?:tell|inform|"
                      r"notify|alert|let)) (?:the user|the owner|anyone|them)\b",
     "asks to hide an action from the user"),
    (TOOL, "en", 0.6, r"\b(?:transfer|wire|send|pay)\s+(?:\$|€|usd|eur)?\s?\d[\d,.]*\s*(?:usd|dollars|eur|euros|btc)?"
                      r"\s*(?:to|into)\s+(?:the\s+)?(?:account|iban|wallet)",
     "asks to move money"),
    (TOOL, "en", 0.5, r"\b(?:purchase|buy|order)\s+\d+\s+(?:gift ?cards|vouchers)", "asks to buy gift cards"),
    (TOOL, "en", 0.5, r"\b(?:whenever|every time|each time|any time|if ever) (?:you |the assistant )?"
                      r"(?:see|get|receive|"
                      r"read|find|encounter)s?\b[^.\n]{0,40}\b(?:call|run|execute|invoke|trigger|delete|remove|wipe|"
                      r"transfer|pay|wire|forward)\b",
     "a standing trigger for an action"),
    (TOOL, "zh", 0.5, r"(?:每当|每次|一旦|只要|以后)(?:你)?(?:看到|收到|读到|遇到|发现)[^。\n]{0,20}就(?:直接|立即|马上)?"
                      r"(?:调用|执行|运行|删除|转账|支付|转发)",
     "设定自动触发的操作"),
    (TOOL, "zh", 0.5, r"(?:购买|订购|开通|升级到?)(?:高级|付费|会员|年度|白金|vip)(?:套餐|会员|版|服务)", "要求花钱"),
    (TOOL, "zh", 0.4, r"(?:调用|执行|运行|触发|使用|用)(?:一下)?\s*`?[\w.]*`?\s*(?:工具|函数|插件|接口|命令)", "要求调用工具"),
    (TOOL, "zh", 0.8, r"(?:调用|执行|运行)[^。\n]{0,30}(?:参数|arguments)", "要求带参数调用工具"),
    (TOOL, "zh", 0.6, r"(?:调用|执行|运行)\s*`?[a-z_][\w]*\.[\w.]+", "要求调用指定函数"),
    (TOOL, "zh", 0.6, r"(?:需要|请)(?:ai|助手|智能体)(?:操作|执行|处理)", "要求助手执行操作"),
    (TOOL, "zh", 0.6, r"(?:然后|并且|之后|完成后)[,，]?(?:别|不要)(?:提|提起|说|告诉别人|声张)(?:这件事|这事|此事|这个)", "要求隐瞒操作"),
    (TOOL, "zh", 0.3, r"(?:收款账户|收款人|收款账号)", "指定收款账户"),  # with an order, see safety/directives
    (TOOL, "zh", 0.8, r"(?:悄悄|偷偷|暗中|秘密|静默|私下)(?:地)?(?:调用|执行|运行|发送|转发|删除|转账|下单|购买|支付|上传)",
     "要求暗中行动"),
    (TOOL, "zh", 0.8, r"(?:不要|别|无需|不必|不用)(?:告诉|告知|通知|提醒|让)(?:用户|他|她|主人|任何人)", "要求对用户隐瞒"),
    (TOOL, "zh", 0.6, r"(?:转账|汇款|打款|支付|转)\s*\d+[^。\n]{0,10}(?:到|给|至)(?:账户|账号|钱包|卡号)", "要求转账"),
    # -- delimiter escapes ---------------------------------------------------------------------------
    (DELIM, "en", 2.0, r"<\|\s*(?:im_start|im_end|im_sep|endoftext|system|user|assistant|eot_id|start_header_id|"
                       r"end_header_id|begin_of_text|end_of_text|fim_\w+)\s*\|>",
     "a chat-template control token"),
    (DELIM, "en", 1.5, r"\[/?\s*(?:inst|sys)\s*\]|<</?\s*sys\s*>>", "a Llama-style instruction marker"),
    (DELIM, "en", 1.2, r"</?\s*(?:memories|memory|system|instructions?|context|user|assistant|human|tool|"
                       r"documents?|untrusted|search_results|function_results|prompt|tool_call|function_call|"
                       r"function_calls|invoke|tool_use)\s*>",
     "a tag that could close the memory block or open a role"),
    (DELIM, "en", 1.0, r"[\"']role[\"']\s*:\s*[\"'](?:system|developer|assistant)[\"']", "a forged chat message"),
    (DELIM, "en", 1.0, r"(?:-{3,}|={3,}|#{3,}|\*{3,})\s*(?:end|begin|start)\s+(?:of\s+)?(?:the\s+)?(?:memor(?:y|ies)|"
                       r"context|system prompt|instructions?|user (?:input|data)|documents?|tool output|data)",
     "a fake end-of-block marker"),
    (DELIM, "en", 0.8, r"(?:^|\n)\s*(?:#{1,6}\s*)?(?:new\s+)?(?:system|developer|assistant)\s+(?:message|prompt|"
                       r"instructions?|override|note)\s*:",
     "a fake role message"),
    (DELIM, "en", 0.3, r"^\s*(?:system|human|assistant)\s*:", "a role label at a line start"),
    (DELIM, "en", 0.8, r"^\s*#{1,6}\s*(?:system|instructions?|admin|developer|system prompt|系统|指令|管理员)\s*$",
     "a fake system heading"),
    (DELIM, "en", 0.8, r"\b(?:the )?(?:conversation|chat|session|context|task) (?:above |so far )?(?:is|has) (?:now )?"
                       r"(?:over|finished|ended|done|complete)\b", "declares the conversation over"),
    (DELIM, "en", 0.8, r"(?:^|\n)\s*(?:human|user)\s*:[^\n]*(?:\n[^\n]*){0,6}?\n\s*(?:assistant|ai)\s*:",
     "a forged dialogue transcript"),
    (DELIM, "zh", 0.8, r"(?:^|\n)\s*(?:系统|开发者)(?:提示|消息|指令)\s*[:：]", "伪造系统消息"),
    (DELIM, "zh", 0.8, r"(?:以上|上面|之前)的?(?:对话|会话|内容|任务)(?:已经|已)?(?:结束|终止)", "宣布对话已结束"),
    (DELIM, "zh", 1.0, r"(?:记忆|上下文|文档|系统提示|数据)(?:块|部分)?(?:到此)?(?:结束|终止)\s*(?:=|-|#){2,}", "伪造的结束标记"),
    # -- directives: untrusted text telling the assistant how to answer (BIPIA-style) ----------------
    (DIR, "en", 0.6, r"\b(?:in|to|within|into|from|of|throughout|on) your (?:responses?|repl(?:y|ies)|answers?|"
                     r"outputs?|next (?:response|reply|message)|code|solution|implementation|codebase|algorithm|"
                     r"elucidation)\b",
     "tells the reader what to put in its answer", UNTRUSTED),
    (DIR, "en", 0.6, r"\byour (?:responses?|repl(?:y|ies)|answers?|outputs?|code|solution) (?:should|must|will|"
                     r"needs? to|could)\b",
     "tells the reader how to answer", UNTRUSTED),
    (DIR, "en", 0.6, r"\b(?:modify|augment|enhance|render|format|structure|provide|enrich|fortify|conclude|end|begin|"
                     r"start) your (?:responses?|repl(?:y|ies)|answers?|outputs?|message|code|solution|implementation)",
     "tells the reader how to shape its answer", UNTRUSTED),
    (DIR, "en", 0.8, rf"\b(?:dear|attention|note (?:to|for)|hey|hi|hello|message (?:to|for)|instructions? (?:to|for)|"
                     rf"p\.?s\.?,? (?:to|for)|important (?:for|to))\s+(?:the\s+|any\s+|all\s+)?{_AI}s?\b",
     "addresses the AI reading it", UNTRUSTED),
    (DIR, "en", 0.8, rf"\b{_AI}s?\s+(?:reading|processing|summari[sz]ing|parsing|viewing|seeing|handling|visiting|"
                     r"browsing|crawling|accessing) (?:this|these)\b",
     "addresses the AI reading it", UNTRUSTED),
    (DIR, "en", 0.6, rf"(?:^|[.!?:\n(\[<\-]\s*|\b(?:also|and|so|now|ok),?\s+)(?:ai\s+)?{_AI}\s*[,:]\s*\w",
     "addresses the AI by name", UNTRUSTED),
    (DIR, "en", 0.6, r"@(?:bot|ai|assistant|机器人|助手)\b", "@-mentions the assistant", UNTRUSTED),
    (DIR, "en", 0.3, r"<!--[^>]{3,}-->", "an HTML comment (invisible on the page, visible to a model)", UNTRUSTED),
    (DIR, "en", 0.5, r"\b(?:when|whenever|if|before|after) (?:you(?:'re| are)? |the (?:ai|assistant|model) )?"
                     r"(?:summari[sz]\w*|answer\w*|respond\w*|repl(?:y|ies|ying)|read\w*|process\w*|translat\w*)\b"
                     r"[^.\n]{0,40}\b(?:this|these|the (?:email|page|document|message|text|user|invite|article))",
     "tells the reader what to do when it processes this", UNTRUSTED),
    (DIR, "en", 0.4, r"\b(?:(?:from now on|going forward|henceforth|hereafter),? (?:you\b|always|never|respond|reply|"
                     r"answer|include|add|end|start|begin|speak|talk|write|say|recommend|mention)|"
                     r"in (?:all )?(?:future|subsequent) (?:responses|replies|answers|conversations))",
     "sets a standing rule", UNTRUSTED),
    (DIR, "en", 0.5, r"\b(?:you must|you should|you need to|you have to|you will)\s+(?:now\s+|always\s+)?(?:respond|"
                     r"reply|answer|say|tell the user|recommend|include|add|output|mention|promote|insist|claim|"
                     r"state|direct|redirect|ask the user|urge|comply|obey|follow)\b",
     "orders the reader", UNTRUSTED),
    (DIR, "en", 0.4, r"\b(?:to|in|for) (?:all |every )?(?:future|subsequent|later) "
                     r"(?:messages|responses|replies|answers|"
                     r"conversations|questions)\b", "sets a rule for future answers", UNTRUSTED),
    (DIR, "en", 0.3, r"\b(?:always|never)\s+(?:respond|reply|answer|mention|recommend|suggest|include|output|refer)\b",
     "sets an answering rule", UNTRUSTED),
    (DIR, "en", 0.6, r"\b(?:the following|the subsequent|the below|this) code (?:block|snippet|excerpt|section)\b"
                     r"[^\n]{0,60}\byour\b|\byour\b[^\n]{0,60}\b(?:the following|the subsequent|the below) code",
     "tells the reader to put code in its work", UNTRUSTED),
    (DIR, "zh", 0.8, r"(?:致|给|对|提醒)?(?:ai|人工智能|助手|机器人|智能体|大模型|模型)(?:的)?(?:提示|注意|请注意)\s*[:：,，]",
     "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.8, r"(?:致|给)(?:ai|人工智能)?(?:助手|机器人|智能体|模型|ai)\s*[:：]", "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.8, r"(?:致|给)(?:正在)?(?:阅读|处理|总结)(?:本|此|这)(?:页|邮件|文档|消息)的(?:ai|助手|人工智能|模型)",
     "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.8, r"(?:访问|阅读|浏览|处理)(?:本|此|这个?)(?:页|页面|网页|邮件|文档)的(?:ai|助手|代理|智能体|模型)", "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.6, r"给(?:ai|助手|代理|智能体|模型)的(?:建议|提示|指示|下一步)", "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.6, r"(?:^|[。！？\n(（【,，])\s*(?:ai|助手|机器人|@机器人)\s*[:：,，]?\s*(?:请|你|在|把|先|立即|调用)",
     "直接对AI发话", UNTRUSTED),
    (DIR, "zh", 0.6, r"(?:在|把)?你的(?:回答|回复|答案|输出|总结)(?:中|里|里面)?", "规定回答内容", UNTRUSTED),
    (DIR, "zh", 0.4, r"(?:从现在开始|从现在起|今后|以后)(?:的)?(?:所有|每次)?(?:回答|回复)", "设定长期规则", UNTRUSTED),
    (DIR, "zh", 0.5, r"(?:在)?(?:回答|回复)(?:用户|问题)(?:之前|前|时|的时候)", "规定回答方式", UNTRUSTED),
    # -- malicious code ------------------------------------------------------------------------------
    (CODE, "en", 0.8, r"\brm\s+-(?:rf|fr)\b|\bdd\s+if=\S+\s+of=/dev/|\bmkfs\b|\bformat\s+c:|:\(\)\s*\{\s*:\|:&\s*\};:",
     "a destructive shell command"),
    (CODE, "en", 0.8, r"\bgit push (?:-f|--force)\b|\bgit reset --hard\b|\bdrop (?:table|database)\b|"
                      r"\btruncate table\b|"
                      r"\bdelete from \w+\s*(?:;|$)", "a destructive repository or database command"),
    (CODE, "en", 0.8, r"\b(?:curl|wget)\b[^|\n]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\bchmod\s+(?:\+x|777)\b",
     "downloads and runs a script"),
    (CODE, "en", 0.6, r"\bexec\(\s*open\(|\bos\.system\(|\bsubprocess\.(?:run|call|popen|check_output)\(|\bnohup\b",
     "runs arbitrary commands"),
    (CODE, "en", 0.5, r"\bcookie(?:s\.txt|s\.pkl|jar)\b|\bos\.environ\b|\bpsutil\.\w+|\busb\.core\b|driverquery|"
                      r"query_devices|\bcontacts\.csv\b|/etc/init\.d|cryptomine|\bminer\b",
     "reads machine or user data"),
    (CODE, "en", 0.5, r"~/\.(?:bashrc|zshrc|profile|bash_profile|ssh)\b|/etc/(?:passwd|shadow|sudoers|crontab)\b|"
                      r"\bauthorized_keys\b", "touches a sensitive system file"),
    (CODE, "en", 0.3, r"\b(?:requests|httpx|urllib3?|aiohttp)\.(?:post|put)\(|\bsmtplib\b|\byagmail\b|\.sendall\(|"
                      r"\.sendto\(|\bftplib\b|storbinary|\bparamiko\b|\bbluetooth\b|\.urlretrieve\(|publish\.single\(",
     "sends data off the machine"),
)
